/* lbr_freeze: placeholder, being written. */
#include "../suite.h"
