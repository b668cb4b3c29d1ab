/* lbr_stack: placeholder, being written. */
#include "../suite.h"
