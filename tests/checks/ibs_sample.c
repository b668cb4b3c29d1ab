/* ibs_sample: placeholder, being written. */
#include "../suite.h"
