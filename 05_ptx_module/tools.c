/* 05_ptx_module/tools.c - the apparatus the steps use but do not teach: CUDA and NVRTC error
 * names, reading a file, the JIT cache directory, reading and editing PTX text, printing a
 * log, cuModuleLoadDataEx with its logs, the median and spread of repeated timings. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform.h"
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

bool check_nvrtc_(nvrtcResult r, const char *call, const char *file, int line)
{
    if (r == NVRTC_SUCCESS)
        return true;
    fflush(stdout);
    fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, nvrtcGetErrorString(r),
            (int)r);
    return false;
}

/* NVRTC's output for `source` (named `name` in messages), compiled with L->arch_opt
 * (--gpu-architecture=compute_XX: PTX, or sm_XX: a cubin and its PTX). Returns the image to
 * load: the PTX where the driver can JIT it, else the cubin. NULL when a call failed. */
char *nvrtc_compile(const char *source, const char *name, const struct lesson *L, char **ptx)
{
    const char *opts[] = {L->arch_opt};
    nvrtcProgram p = NULL;
    size_t size = 0, cubin_size = 0;
    char *text = NULL, *cubin = NULL;
    bool ok = checkNvrtc(nvrtcCreateProgram(&p, source, name, 0, NULL, NULL)) &&
              checkNvrtc(nvrtcCompileProgram(p, 1, opts)) &&
              checkNvrtc(nvrtcGetPTXSize(p, &size)) && (text = malloc(size + 1)) != NULL &&
              checkNvrtc(nvrtcGetPTX(p, text));
    if (ok && !L->jit_ok) /* SASS for this card: nvrtcGetCUBIN, with -arch=sm_XX */
        ok = checkNvrtc(nvrtcGetCUBINSize(p, &cubin_size)) &&
             (cubin = malloc(cubin_size)) != NULL && checkNvrtc(nvrtcGetCUBIN(p, cubin));
    if (p)
        ok = checkNvrtc(nvrtcDestroyProgram(&p)) && ok;
    if (!ok) {
        free(text);
        free(cubin);
        return NULL;
    }
    text[size] = '\0';
    if (!L->jit_ok) { /* load the cubin; the PTX only to read */
        if (ptx)
            *ptx = text;
        else
            free(text);
        return cubin;
    }
    if (ptx && (*ptx = strdup(text)) == NULL) {
        free(text);
        return NULL;
    }
    return text;
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

/* ---- files, the JIT cache directory ---------------------------------------------------- */

/* Opens `path` for reading without waiting (a FIFO would block fopen until a writer came),
 * and keeps it only when it is a regular file: EISDIR for a directory, EINVAL for a FIFO, a
 * device or a socket. NULL with errno set otherwise. */
static FILE *open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int err = fstat(fd, &st) != 0    ? errno
              : S_ISDIR(st.st_mode)  ? EISDIR
              : !S_ISREG(st.st_mode) ? EINVAL
                                     : 0;
    FILE *f = NULL;
    if (!err && (fcntl(fd, F_SETFL, 0) != 0 || (f = fdopen(fd, "rb")) == NULL))
        err = errno;
    if (err) {
        close(fd);
        errno = err;
        return NULL;
    }
    return f;
}

/* EFBIG past `limit`, else open_regular's, fread's own errno or ENOMEM. */
char *read_file(const char *path, size_t limit, size_t *size)
{
    FILE *f = open_regular(path);
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    int err = 0;
    do {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                err = ENOMEM;
                break;
            }
            buf = bigger;
        }
        errno = 0;
        got = fread(buf + len, 1, 4096, f);
        len += got;
        if (got == 0 && ferror(f))
            err = errno ? errno : EIO;
        else if (len > limit)
            err = EFBIG;
    } while (got > 0 && !err);
    fclose(f);
    if (err) {
        free(buf);
        errno = err;
        return NULL;
    }
    buf[len] = '\0';
    if (size)
        *size = len;
    return buf;
}

bool readable_file(const char *path)
{
    FILE *f = open_regular(path);
    if (f)
        fclose(f);
    return f != NULL;
}

void beside_program(const char *name, char *path, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(path, len, "%s/%s", slash ? exe : ".", name);
}

static char cache_dir[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_cache_dir(void)
{
    if (cache_dir[0])
        nftw(cache_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

bool fresh_jit_cache(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    if (snprintf(cache_dir, sizeof cache_dir, "%s/ptx_module-jit-cache-XXXXXX", tmp) >=
        (int)sizeof cache_dir) {
        fprintf(stderr, "%s: TMPDIR is too long for the JIT cache's path: %s\n", lesson_prog, tmp);
        cache_dir[0] = '\0';
        return false;
    }
    if (!mkdtemp(cache_dir)) {
        fprintf(stderr, "%s: mkdtemp %s: %s\n", lesson_prog, cache_dir, strerror(errno));
        cache_dir[0] = '\0';
        return false;
    }
    atexit(remove_cache_dir);
    setenv("CUDA_CACHE_PATH", cache_dir, 1);
    return true;
}

/* The file name (no directory) of the first library mapped into this process whose path holds
 * `part`, from /proc/self/maps; false when none is mapped. */
bool mapped_library(const char *part, char *name, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4608];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (path && strstr(path, part)) {
            path[strcspn(path, "\n")] = '\0';
            const char *base = strrchr(path, '/') + 1;
            snprintf(name, len, "%s", base);
            found = true;
        }
    }
    if (f)
        fclose(f);
    return found;
}

/* ---- fatbinary ------------------------------------------------------------------------ */

/* A fatbinary, as nvcc -fatbin writes it and cuobjdump --list-elf / --list-ptx read it: a
 * 16-byte header (magic 0xBA55ED50, a version, its own size, the size of what follows), then
 * one entry per image, each with a header of its own: kind (1 PTX, 2 ELF = a cubin's SASS) at
 * byte 0, header size at 4, image size at 8, architecture (75, 90, ...) at 28. NVIDIA does not
 * document this layout: this is how the files read (the tests compare it with cuobjdump). */
int fatbin_list(const void *image, size_t size, struct fatbin_entry *e, int max)
{
    const unsigned char *p = image;
    uint32_t magic, arch, hdr;
    uint64_t total, bytes;
    uint16_t kind;
    if (size < 16)
        return -1;
    memcpy(&magic, p, 4);
    memcpy(&total, p + 8, 8);
    if (magic != 0xBA55ED50u || total > size - 16)
        return -1;
    int n = 0;
    for (size_t off = 16; off + 32 <= 16 + total && n < max; off += hdr + bytes) {
        memcpy(&kind, p + off, 2);
        memcpy(&hdr, p + off + 4, 4);
        memcpy(&bytes, p + off + 8, 8);
        memcpy(&arch, p + off + 28, 4);
        if (hdr < 32 || bytes > size)
            return -1;
        e[n].sass = kind == 2;
        e[n].arch = (int)arch;
        n++;
    }
    return n;
}

/* ---- PTX text -------------------------------------------------------------------------- */

void read_ptx_facts(const char *ptx, struct ptx_facts *f)
{
    memset(f, 0, sizeof *f);
    for (const char *line = ptx; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *s = line + strspn(line, " \t");
        if (strncmp(s, ".version", 8) == 0)
            sscanf(s + 8, "%15s", f->version);
        else if (strncmp(s, ".target", 7) == 0 && sscanf(s + 7, " %31[^ ,\t\r\n]", f->target) == 1)
            f->target_sm = strncmp(f->target, "sm_", 3) == 0 ? atoi(f->target + 3) : 0;
        const char *e = strstr(s, ".entry ");
        const char *eol = strchr(s, '\n');
        if (e && (!eol || e < eol)) {
            e += 7;
            size_t used = strlen(f->entries), n = strcspn(e, "( \t\r\n");
            if (used + n + 2 < sizeof f->entries) {
                if (used)
                    f->entries[used++] = ' ';
                memcpy(f->entries + used, e, n);
                f->entries[used + n] = '\0';
            }
        }
    }
}

bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

char *ptx_edit(const char *ptx, const char *line_start, const char *replacement, const char *extra)
{
    size_t len = strlen(ptx),
           add = (replacement ? strlen(replacement) : 0) + (extra ? strlen(extra) : 0);
    char *out = malloc(len + add + 2);
    if (!out)
        return NULL;
    const char *at = line_start ? strstr(ptx, line_start) : NULL;
    if (at) {
        const char *eol = strchr(at, '\n');
        size_t head = (size_t)(at - ptx);
        memcpy(out, ptx, head);
        strcpy(out + head, replacement);
        strcat(out, eol ? eol : "");
    } else {
        strcpy(out, ptx);
    }
    if (extra)
        strcat(out, extra);
    return out;
}

void print_log(FILE *to, const char *log)
{
    const char *line = log;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        int n = eol ? (int)(eol - line) : (int)strlen(line);
        if (n > 0)
            fprintf(to, "        | %.*s\n", n, line);
        line = eol ? eol + 1 : NULL;
    }
}

/* ---- loading with the JIT's logs, statistics ------------------------------------------- */

CUresult load_with_log(CUmodule *module, const void *image, struct jit_log *log)
{
    memset(log, 0, sizeof *log);
    CUjit_option opt[] = {
        CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,      CU_JIT_OPTIMIZATION_LEVEL,
        CU_JIT_WALL_TIME,
    };
    void *val[] = {
        log->info,
        (void *)(uintptr_t)(LOG_SIZE - 1),
        log->error,
        (void *)(uintptr_t)(LOG_SIZE - 1),
        (void *)(uintptr_t)1,
        (void *)(uintptr_t)4,
        NULL,
    };
    CUresult r =
        cuModuleLoadDataEx(module, image, (unsigned)(sizeof opt / sizeof opt[0]), opt, val);
    /* CU_JIT_WALL_TIME: the driver overwrites the option's value slot with a float. */
    memcpy(&log->wall_ms, &val[6], sizeof log->wall_ms);
    return r;
}

double print_median(const char *label, double *v, int width, int decimals, const char *unit)
{
    double m = median_of(v, REPEATS); /* sorts v: v[0] is the minimum, v[REPEATS - 1] the maximum */
    printf("%s%*.*f %s  (%.*f-%.*f)\n", label, width, decimals, m, unit, decimals, v[0], decimals,
           v[REPEATS - 1]);
    return m;
}
