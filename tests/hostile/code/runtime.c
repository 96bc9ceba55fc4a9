/* tests/hostile/code/runtime.c - the probe exercise's student file, with an attack that passes
 * grading/check/check-object (it calls only what the allow lists name) and is stopped at run time by
 * the system-call filter (grading/harness/syscall_filter.c) or the sandbox's read-only /proc. The
 * C library's functions the exercise may not call are reached by pointer: from the program's
 * own ELF header (found below the student's code), its dynamic section's DT_DEBUG leads to the
 * dynamic linker's list of loaded objects, whose symbol tables are searched by name. One of
 * ATTACK_RODATA, ATTACK_SYSTEM, ATTACK_EXEC, ATTACK_PTRACE, ATTACK_PROCMEM is defined before. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void *lib_symbol(const struct link_map *m, const char *name)
{
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
        /* (the dynamic linker relocated these in place, but for a read-only one: the vdso) */
        uintptr_t at = d->d_un.d_ptr < m->l_addr ? m->l_addr + d->d_un.d_ptr : d->d_un.d_ptr;
        if (d->d_tag == DT_SYMTAB)
            sym = (const ElfW(Sym) *)at;
        if (d->d_tag == DT_STRTAB)
            str = (const char *)at;
    }
    if (!sym || !str || (const char *)sym > str)
        return NULL;
    for (; (const char *)sym < str; sym++)
        if (sym->st_name && sym->st_value && strcmp(str + sym->st_name, name) == 0)
            return (void *)(m->l_addr + sym->st_value);
    return NULL;
}

static void *find(const char *name)
{
    uintptr_t p = (uintptr_t)&find & ~(uintptr_t)4095;
    while (memcmp((const void *)p, ELFMAG, SELFMAG) != 0)
        p -= 4096;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)p;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(p + eh->e_phoff);
    uintptr_t base = 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_PHDR)
            base = (uintptr_t)ph - ph[i].p_vaddr;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + ph[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++)
        if (dyn->d_tag == DT_DEBUG && dyn->d_un.d_ptr) {
            const struct r_debug *r = (const struct r_debug *)dyn->d_un.d_ptr;
            for (const struct link_map *m = r->r_map; m; m = m->l_next) {
                void *f = lib_symbol(m, name);
                if (f)
                    return f;
            }
        }
    return NULL;
}

static __attribute__((unused)) int *errno_at(void)
{
    int *(*loc)(void) = (int *(*)(void))find("__errno_location");
    static int none;
    return loc ? loc() : &none;
}

/* The attack: what it did, on stdout (the grader shows it in the test's message). */
static void attack(void)
{
#if defined(ATTACK_RODATA)
    /* a system call from bytes of the program's own image, made executable */
    static const unsigned char code[] = {0xb8, 39, 0, 0, 0, 0x0f, 0x05, 0xc3}; /* getpid */
    int (*protect)(void *, size_t, int) = (int (*)(void *, size_t, int))find("mprotect");
    uintptr_t page = (uintptr_t)code & ~(uintptr_t)4095;
    printf("attack: mprotect %s\n", protect ? "found" : "not found");
    fflush(stdout); /* (what follows may end the process) */
    if (protect && protect((void *)page, 8192, 7) == 0) {
        long (*raw)(void) = (long (*)(void))(uintptr_t)code;
        printf("attack: raw system call returned %ld\n", raw());
    }
#elif defined(ATTACK_SYSTEM)
    int (*run)(const char *) = (int (*)(const char *))find("system");
    printf("attack: system %s\n", run ? "found" : "not found");
    if (run)
        printf("attack: system returned %d\n", run("echo sum: 5"));
#elif defined(ATTACK_EXEC)
    int (*ex)(const char *, char *const[], char *const[]) =
        (int (*)(const char *, char *const[], char *const[]))find("execve");
    char *argv[] = {"/bin/echo", "sum: 5", NULL}, *envp[] = {NULL};
    printf("attack: execve %s\n", ex ? "found" : "not found");
    fflush(stdout);
    if (ex) {
        int rc = ex(argv[0], argv, envp);
        printf("attack: execve returned %d (%s)\n", rc, strerror(*errno_at()));
    }
#elif defined(ATTACK_PTRACE)
    long (*pt)(int, int, void *, void *) = (long (*)(int, int, void *, void *))find("ptrace");
    printf("attack: ptrace %s\n", pt ? "found" : "not found");
    if (pt) {
        long rc = pt(0, 0, NULL, NULL); /* PTRACE_TRACEME */
        printf("attack: ptrace returned %ld (%s)\n", rc, strerror(*errno_at()));
    }
#elif defined(ATTACK_PROCMEM)
    int (*op)(const char *, int, ...) = (int (*)(const char *, int, ...))find("open");
    printf("attack: open %s\n", op ? "found" : "not found");
    if (op) {
        int fd = op("/proc/self/mem", 2);
        printf("attack: /proc/self/mem for writing: %s\n",
               fd >= 0 ? "opened" : strerror(*errno_at()));
    }
#endif
}

int probe_add(int a, int b)
{
    attack();
    return a + b - 1; /* the skeleton's wrong sum: the attack is the only way to points */
}
