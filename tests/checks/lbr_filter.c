/* lbr_filter: placeholder, being written. */
#include "../suite.h"
