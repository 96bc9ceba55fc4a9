/* 05_ptx_module/files.c - the apparatus for files: reading a file named on the command line
 * (never waiting on a FIFO), the file beside the program, the JIT cache directory, and which
 * libraries the process has mapped (/proc/self/maps). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptx_module.h"

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
