/* 05_ptx_module/ptx_text.c - the apparatus that reads what the build made: the images in a
 * fatbinary, what a PTX text says about itself (.version, .target, .entry), a PTX text edited
 * to break it or to make it new, and a JIT or NVRTC log printed line by line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_module.h"

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
