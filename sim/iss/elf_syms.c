/* elf_syms.c — function symbols of an ELF image through libelf. */
#include "elf_syms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_addr(const void *a, const void *b)
{
    const elf_func_t *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int elf_read_functions(const char *path, elf_func_t **out, size_t *n)
{
    if (!path || !out || !n)
        return -EINVAL;
    *out = NULL;
    *n = 0;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return -ENOEXEC;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int rc = -ENOEXEC; /* until a symbol table is read */
    elf_func_t *f = NULL;
    size_t count = 0;
    for (Elf_Scn *s = e ? elf_nextscn(e, NULL) : NULL; s; s = elf_nextscn(e, s)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(s, NULL);
        size_t syms = d ? sh.sh_size / sh.sh_entsize : 0;
        f = calloc(syms ? syms : 1, sizeof *f);
        if (!f) {
            rc = -ENOMEM;
            break;
        }
        for (size_t i = 0; i < syms; i++) {
            GElf_Sym sym;
            const char *name;
            if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
                continue;
            f[count].addr = (uint32_t)sym.st_value;
            f[count].size = (uint32_t)sym.st_size;
            strncpy(f[count].name, name, sizeof f[count].name - 1);
            count++;
        }
        rc = 0;
        break;
    }
    if (e)
        elf_end(e);
    close(fd);
    if (rc) {
        free(f);
        return rc;
    }
    qsort(f, count, sizeof *f, by_addr);
    *out = f;
    *n = count;
    return 0;
}

const elf_func_t *elf_func_at(const elf_func_t *f, size_t n, uint32_t addr)
{
    size_t lo = 0, hi = n; /* the last function starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const elf_func_t *c = &f[lo - 1];
    return addr - c->addr < (c->size ? c->size : 1) ? c : NULL;
}
