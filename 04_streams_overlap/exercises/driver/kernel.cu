// The lesson's kernel and its launcher (launch_work). Do not edit; see pipeline.c.
#include "../../work.cuh"
