/* pebs_record: placeholder, being written. */
#include "../suite.h"
