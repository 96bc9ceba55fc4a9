// The lesson's kernel and its launcher (launch_work), linked into every exercise by the harness.
#include "../work.cuh"
