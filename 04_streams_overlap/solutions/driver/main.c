/* The harness: options, buffers, baseline, timing, verification. Do not edit; see pipeline.c. */
#include "../../harness/harness_main.c"
