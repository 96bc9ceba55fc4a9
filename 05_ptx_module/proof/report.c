/* 05_ptx_module/report.c - the apparatus that names, checks and judges: CUDA and NVRTC error
 * names, what each module of step 2 is called, a timing claim (not judged under a tool), the
 * median and spread of repeated timings. */
#include <stdarg.h>
#include <stdio.h>

#include "ptx_module.h"

const char *const module_what[M_COUNT] = {
    "PTX file, cuModuleLoad",
    "embedded PTX, cuModuleLoadData",
    "embedded PTX, cuModuleLoadDataEx",
    "embedded cubin, cuModuleLoadData",
    "embedded fatbin, cuModuleLoadData",
    "NVRTC's PTX",
};

const char *cu_name(CUresult r)
{
    const char *name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "(no name)";
}

bool timing_claim(const struct lesson *L, bool cond, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (L->tool[0]) {
        not_judged(L->tool, "%s", text);
        return true;
    }
    return claim(cond, "%s", text);
}

double print_median(const char *label, double *v, int width, int decimals, const char *unit)
{
    double m = median_of(v, REPEATS); /* sorts v: v[0] is the minimum, v[REPEATS - 1] the maximum */
    printf("%s%*.*f %s  (%.*f-%.*f)\n", label, width, decimals, m, unit, decimals, v[0], decimals,
           v[REPEATS - 1]);
    return m;
}
