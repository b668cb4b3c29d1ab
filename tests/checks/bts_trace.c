/* bts_trace: placeholder, being written. */
#include "../suite.h"
