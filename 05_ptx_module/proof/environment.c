/* 05_ptx_module/proof/environment.c - CUDA's own switches: the environment variables of the
 * CUDA C++ Programming Guide ("CUDA Environment Variables": device enumeration, the JIT and its
 * cache, module loading, CUDA_LAUNCH_BLOCKING) that change what this lesson observes. The
 * driver reads them once, at cuInit: the lesson reads them too, says what each changes where it
 * matters, and judges accordingly (a claim the variable makes unjudgeable is [n/j] with the
 * variable's name; one it changes is claimed as changed). Step 1 calls cuda_switches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "ptx_module.h"

/* "NAME=1" when the variable is set to 1, else NULL. */
static const char *set_to_1(const char *name)
{
    const char *v = getenv(name);
    if (!v || strcmp(v, "1") != 0)
        return NULL;
    static char text[4][48];
    static int used;
    char *t = text[used++ % 4];
    snprintf(t, sizeof text[0], "%s=1", name);
    return t;
}

/* Under a forced JIT the driver ignores the fatbins' SASS (this program's own, for <<<>>>, and
 * kernels.fatbin alike: both are built from GENCODE) and compiles their PTX: PTX for this card
 * or an older architecture must be there. Returns the newest such PTX architecture, 0 if none. */
static int fatbin_ptx_for_card(const struct lesson *L, char *list, size_t len)
{
    struct fatbin_entry e[32];
    int n = fatbin_list(kernels_fatbin, kernels_fatbin_size, e, 32), best = 0;
    list[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (e[i].sass)
            continue;
        size_t used = strlen(list);
        snprintf(list + used, len - used, "%scompute_%d", used ? " " : "", e[i].arch);
        if (e[i].arch <= L->card_sm && e[i].arch > best)
            best = e[i].arch;
    }
    return best;
}

/* The JIT switches. Returns false (L->exit_code 77) where a forced JIT makes the lesson
 * impossible: no PTX this card can take. */
static bool jit_switches(struct lesson *L)
{
    L->force_jit = set_to_1("CUDA_FORCE_PTX_JIT");
    if (!L->force_jit)
        L->force_jit = set_to_1("CUDA_FORCE_JIT");
    L->no_jit = set_to_1("CUDA_DISABLE_PTX_JIT");
    if (!L->no_jit)
        L->no_jit = set_to_1("CUDA_DISABLE_JIT");
    if (L->force_jit) {
        char ptx[128];
        int arch = fatbin_ptx_for_card(L, ptx, sizeof ptx);
        if (!arch) {
            fprintf(stderr,
                    "%s: %s makes the driver ignore SASS and compile PTX, and this build's PTX "
                    "(%s) is for a newer GPU than this sm_%d one: unset %.*s, or build PTX for "
                    "this card (make ARCH=%d)\n",
                    lesson_prog, L->force_jit, ptx[0] ? ptx : "none", L->card_sm,
                    (int)(strchr(L->force_jit, '=') - L->force_jit), L->force_jit, L->card_sm);
            L->exit_code = EXIT_CANNOT_RUN;
            return false;
        }
        printf("   %s: the driver ignores the SASS of fatbins (this program's and\n"
               "      kernels.fatbin) and JIT-compiles their PTX (compute_%d) at load: step 2e "
               "claims\n"
               "      that, and a JIT cache hit is not judged\n",
               L->force_jit, arch);
    }
    if (L->no_jit)
        printf("   %s: the driver may refuse to compile PTX: step 2a tries, and where it refuses\n"
               "      every step loads SASS (the cubin, the fatbin, NVRTC's cubin) and what needs "
               "the JIT\n"
               "      is not judged\n",
               L->no_jit);
    return true;
}

/* The JIT cache's switches, and CUDA_LAUNCH_BLOCKING. */
static void cache_switches(struct lesson *L)
{
    const char *cache = getenv("CUDA_CACHE_DISABLE"), *max = getenv("CUDA_CACHE_MAXSIZE");
    L->cache_off = cache && strcmp(cache, "1") == 0;
    printf("   JIT cache: CUDA_CACHE_PATH set to a new empty directory (removed at exit)%s%s%s\n",
           L->user_cache[0] ? ",\n      in place of yours (" : "", L->user_cache,
           L->user_cache[0] ? "), so that a cold JIT is cold" : "");
    printf("   CUDA_CACHE_DISABLE   %s%s: %s\n", cache ? "=" : "", cache ? cache : "unset",
           L->cache_off ? "no JIT cache: the same PTX is compiled again at every load (steps 2, 4)"
                        : "the driver caches what its JIT compiles (=1 turns that off)");
    char *end = NULL;
    long long bytes = max ? strtoll(max, &end, 10) : 0;
    if (max && (end == max || *end != '\0' || bytes < (1 << 20))) {
        snprintf(L->cache_small, sizeof L->cache_small, "CUDA_CACHE_MAXSIZE=%.40s", max);
        printf("   %s: the driver caches no binary larger than that many bytes: a JIT\n"
               "      cache hit is not judged\n",
               L->cache_small);
    } else if (max) {
        printf("   CUDA_CACHE_MAXSIZE=%s: room enough for this lesson's binaries\n", max);
    }
    const char *blocking = getenv("CUDA_LAUNCH_BLOCKING");
    L->blocking = blocking && strcmp(blocking, "1") == 0;
    if (L->blocking)
        printf("   CUDA_LAUNCH_BLOCKING=1: every launch returns only when its kernel is done: "
               "step 5\n"
               "      does not judge waiting against launching\n");
}

bool cuda_switches(struct lesson *L, int count)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES"),
               *data = getenv("CUDA_MODULE_DATA_LOADING"),
               *preload = getenv("CUDA_FORCE_PRELOAD_LIBRARIES");
    cache_switches(L);
    printf("   CUDA_VISIBLE_DEVICES %s%s: the driver shows %d device(s), numbered from 0\n",
           visible ? "=" : "", visible ? visible : "unset", count);
    if (data)
        printf("   CUDA_MODULE_DATA_LOADING=%s: when a module's data goes to the GPU; no claim "
               "here depends on it\n",
               data);
    if (preload) /* cuda.h, cuInit: "preloads various libraries needed for JIT compilation" */
        printf("   CUDA_FORCE_PRELOAD_LIBRARIES=%s: whether cuInit preloads the JIT's libraries "
               "(0: when first\n"
               "      needed); step 2a says whether the JIT compiler was mapped before the first "
               "load\n",
               preload);
    return jit_switches(L);
}

/* The CUDA_MODULE_LOADING line, once the context is there (cuModuleGetLoadingMode). */
void print_loading_mode(CUmoduleLoadingMode mode)
{
    const char *loading = getenv("CUDA_MODULE_LOADING");
    printf("   CUDA_MODULE_LOADING  %s%s: %s\n", loading ? "=" : "", loading ? loading : "unset",
           mode == CU_MODULE_LAZY_LOADING
               ? "lazy loading: a kernel goes to the GPU at its first lookup or launch"
               : "eager loading: every kernel of a module goes to the GPU when the module loads");
}
