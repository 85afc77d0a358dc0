/* elf_load.c — validate-then-copy ELF loader for the firmware core (see elf_load.h). */
#include "elf_load.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ADDR_SPACE ((uint64_t)1 << 32) /* one past the last 32-bit guest address */
#define INSN_ALIGN 4u                  /* RV32 without C: IALIGN = 32 */

/* Where the message goes and what it names. */
typedef struct ctx {
    const char *name;
    char *err;
    size_t errlen;
} ctx_t;

/* Write "name: where: reason" into the caller's buffer; returns -ENOEXEC. */
__attribute__((format(printf, 3, 4))) static int refuse(const ctx_t *c, const char *where,
                                                       const char *fmt, ...)
{
    if (c->err && c->errlen) {
        int n = snprintf(c->err, c->errlen, "%s: %s: ", c->name, where);
        if (n >= 0 && (size_t)n < c->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -ENOEXEC;
}

/* Same, with another errno (file access, memory). */
static int fail_errno(const ctx_t *c, int err, const char *what)
{
    if (c->err && c->errlen)
        snprintf(c->err, c->errlen, "%s: %s: %s", c->name, what, strerror(err));
    return -err;
}

/* One PT_LOAD segment that passed its own checks. */
typedef struct seg {
    unsigned idx;   /* program header index */
    uint32_t addr;  /* p_paddr (== p_vaddr) */
    uint64_t end;   /* addr + p_memsz, <= 2^32 */
    uint32_t off, filesz, memsz, flags;
    size_t ram;     /* index of the RAM region holding it */
} seg_t;

static int seg_cmp(const void *a, const void *b)
{
    const seg_t *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static const char *class_name(unsigned v)
{
    switch (v) {
    case ELFCLASSNONE: return "ELFCLASSNONE";
    case ELFCLASS32: return "ELFCLASS32";
    case ELFCLASS64: return "ELFCLASS64";
    default: return "unknown";
    }
}

static const char *data_name(unsigned v)
{
    switch (v) {
    case ELFDATANONE: return "ELFDATANONE";
    case ELFDATA2LSB: return "ELFDATA2LSB";
    case ELFDATA2MSB: return "ELFDATA2MSB";
    default: return "unknown";
    }
}

static const char *type_name(unsigned v)
{
    switch (v) {
    case ET_NONE: return "ET_NONE";
    case ET_REL: return "ET_REL (an object file, not linked)";
    case ET_EXEC: return "ET_EXEC";
    case ET_DYN: return "ET_DYN (position-independent)";
    case ET_CORE: return "ET_CORE";
    default: return "unknown";
    }
}

static const char *eflag_name(uint32_t bit)
{
    switch (bit) {
    case EF_RISCV_RVC: return "EF_RISCV_RVC (compressed instructions)";
    case 0x2: return "EF_RISCV_FLOAT_ABI_SINGLE bit (hardware float ABI)";
    case 0x4: return "EF_RISCV_FLOAT_ABI_DOUBLE bit (hardware float ABI)";
    case EF_RISCV_RVE: return "EF_RISCV_RVE (RV32E register file)";
    case EF_RISCV_TSO: return "EF_RISCV_TSO (TSO memory model)";
    default: return "a rejected flag";
    }
}

static bool overlaps(uint64_t a, uint64_t a_end, uint64_t b, uint64_t b_end)
{
    return a < b_end && b < a_end;
}

/* Validate the whole image in buf (len bytes, suitably aligned, owned by the
 * caller and writable for libelf), then copy. */
static int load_buf(char *buf, size_t len, const ctx_t *c, const elf_memmap_t *map,
                    elf_load_info_t *info)
{
    const unsigned char *id = (const unsigned char *)buf;

    /* Identification, checked on the raw bytes so every message is precise. */
    if (len < SELFMAG)
        return refuse(c, "ELF header", "not an ELF file: only %zu byte(s), truncated before the ELF magic", len);
    if (memcmp(id, ELFMAG, SELFMAG) != 0)
        return refuse(c, "ELF header",
                      "not an ELF file: magic is %02x %02x %02x %02x, expected 7f 45 4c 46 (\\x7fELF)",
                      id[0], id[1], id[2], id[3]);
    if (len < EI_NIDENT)
        return refuse(c, "ELF header", "truncated: file is %zu bytes, e_ident needs %d", len, EI_NIDENT);
    if (id[EI_CLASS] != ELFCLASS32)
        return refuse(c, "ELF header e_ident[EI_CLASS]", "class is %u (%s), expected ELFCLASS32",
                      id[EI_CLASS], class_name(id[EI_CLASS]));
    if (id[EI_DATA] != ELFDATA2LSB)
        return refuse(c, "ELF header e_ident[EI_DATA]", "data encoding is %u (%s), expected ELFDATA2LSB",
                      id[EI_DATA], data_name(id[EI_DATA]));
    if (id[EI_VERSION] != EV_CURRENT)
        return refuse(c, "ELF header e_ident[EI_VERSION]", "version is %u, expected EV_CURRENT (%u)",
                      id[EI_VERSION], EV_CURRENT);
    if (len < sizeof(Elf32_Ehdr))
        return refuse(c, "ELF header", "truncated: file is %zu bytes, the ELF32 header needs %zu", len,
                      sizeof(Elf32_Ehdr));

    (void)elf_version(EV_CURRENT);
    Elf *elf = elf_memory(buf, len);
    if (!elf)
        return refuse(c, "ELF header", "libelf cannot read the image: %s", elf_errmsg(-1));
    int rc = -ENOEXEC;
    seg_t *segs = NULL;

    if (elf_kind(elf) != ELF_K_ELF) {
        rc = refuse(c, "ELF header", "libelf does not see an ELF object: %s", elf_errmsg(-1));
        goto out;
    }
    Elf32_Ehdr *eh = elf32_getehdr(elf);
    if (!eh) {
        rc = refuse(c, "ELF header", "libelf cannot read the header: %s", elf_errmsg(-1));
        goto out;
    }
    if (eh->e_version != EV_CURRENT) {
        rc = refuse(c, "ELF header e_version", "version is %u, expected EV_CURRENT (%u)", eh->e_version,
                    EV_CURRENT);
        goto out;
    }
    if (eh->e_machine != EM_RISCV) {
        rc = refuse(c, "ELF header e_machine", "machine is %u, expected EM_RISCV (%u)", eh->e_machine,
                    EM_RISCV);
        goto out;
    }
    if (eh->e_type != ET_EXEC) {
        rc = refuse(c, "ELF header e_type", "type is %u (%s), expected ET_EXEC", eh->e_type,
                    type_name(eh->e_type));
        goto out;
    }
    if (eh->e_flags & map->reject_eflags) {
        uint32_t bad = eh->e_flags & map->reject_eflags;
        rc = refuse(c, "ELF header e_flags", "flags 0x%x include %s, which this core does not implement",
                    eh->e_flags, eflag_name(bad & -bad));
        goto out;
    }
    if (eh->e_phentsize != sizeof(Elf32_Phdr)) {
        rc = refuse(c, "ELF header e_phentsize", "program header size is %u, expected %zu",
                    eh->e_phentsize, sizeof(Elf32_Phdr));
        goto out;
    }
    if (eh->e_phnum == 0) {
        rc = refuse(c, "ELF header e_phnum", "no program headers (e_phnum is 0): nothing to load");
        goto out;
    }
    if (eh->e_phnum == PN_XNUM) {
        rc = refuse(c, "ELF header e_phnum", "e_phnum is PN_XNUM (extended numbering), not supported");
        goto out;
    }
    if (eh->e_phoff == 0) {
        rc = refuse(c, "ELF header e_phoff", "e_phoff is 0 but e_phnum is %u", eh->e_phnum);
        goto out;
    }
    if (eh->e_phoff % 4) {
        rc = refuse(c, "ELF header e_phoff", "bad alignment: program header table at 0x%x is not 4-byte aligned",
                    eh->e_phoff);
        goto out;
    }
    uint64_t ph_end = (uint64_t)eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf32_Phdr);
    if (ph_end > len) {
        rc = refuse(c, "ELF header e_phoff",
                    "truncated: program header table [0x%x, 0x%llx) (%u entries) runs past end of file (%zu bytes)",
                    eh->e_phoff, (unsigned long long)ph_end, eh->e_phnum, len);
        goto out;
    }
    const uint32_t entry = eh->e_entry;
    const unsigned phnum = eh->e_phnum;
    Elf32_Phdr *ph = elf32_getphdr(elf);
    if (!ph) {
        rc = refuse(c, "ELF header", "libelf cannot read the program headers: %s", elf_errmsg(-1));
        goto out;
    }

    segs = calloc(phnum, sizeof(*segs));
    if (!segs) {
        rc = fail_errno(c, ENOMEM, "segment table");
        goto out;
    }

    /* Pass 1: every PT_LOAD segment on its own. */
    unsigned n = 0;
    for (unsigned i = 0; i < phnum; i++) {
        const Elf32_Phdr *p = &ph[i];
        char where[32];
        snprintf(where, sizeof(where), "segment %u", i);
        if (p->p_type != PT_LOAD)
            continue;
        if (p->p_filesz > p->p_memsz) {
            rc = refuse(c, where, "p_filesz 0x%x > p_memsz 0x%x", p->p_filesz, p->p_memsz);
            goto out;
        }
        if (p->p_filesz && (uint64_t)p->p_offset + p->p_filesz > len) {
            rc = refuse(c, where,
                        "truncated: segment data [0x%x, 0x%llx) runs past end of file (%zu bytes)",
                        p->p_offset, (unsigned long long)p->p_offset + p->p_filesz, len);
            goto out;
        }
        if (p->p_memsz == 0)
            continue; /* occupies nothing */
        if (p->p_align > 1) {
            if (p->p_align & (p->p_align - 1)) {
                rc = refuse(c, where, "bad alignment: p_align 0x%x is not a power of two", p->p_align);
                goto out;
            }
            if ((p->p_vaddr ^ p->p_offset) & (p->p_align - 1)) {
                rc = refuse(c, where,
                            "bad alignment: p_vaddr 0x%x and p_offset 0x%x differ modulo p_align 0x%x",
                            p->p_vaddr, p->p_offset, p->p_align);
                goto out;
            }
        }
        if (p->p_vaddr != p->p_paddr) {
            rc = refuse(c, where,
                        "p_vaddr 0x%x != p_paddr 0x%x: the core has no MMU and the image must run where it is loaded",
                        p->p_vaddr, p->p_paddr);
            goto out;
        }
        const uint32_t a = p->p_paddr;
        const uint64_t e = (uint64_t)a + p->p_memsz;
        if ((p->p_flags & PF_X) && (a % INSN_ALIGN)) {
            rc = refuse(c, where, "bad alignment: executable segment at 0x%08x is not %u-byte aligned", a,
                        INSN_ALIGN);
            goto out;
        }
        if (e > ADDR_SPACE) {
            rc = refuse(c, where,
                        "[0x%08x, +0x%x) wraps around the 32-bit address space", a, p->p_memsz);
            goto out;
        }
        for (size_t w = 0; w < map->n_windows; w++) {
            const elf_window_t *win = &map->windows[w];
            const uint64_t we = (uint64_t)win->base + win->size;
            if (overlaps(a, e, win->base, we)) {
                rc = refuse(c, where,
                            "[0x%08x, 0x%08llx) overlaps device-register window '%s' [0x%08x, 0x%08llx)", a,
                            (unsigned long long)e, win->name ? win->name : "?", win->base,
                            (unsigned long long)we);
                goto out;
            }
        }
        size_t r = 0;
        for (; r < map->n_ram; r++) {
            const elf_ram_t *ram = &map->ram[r];
            if (a >= ram->base && e <= (uint64_t)ram->base + ram->size)
                break;
        }
        if (r == map->n_ram) {
            if (map->n_ram == 1)
                rc = refuse(c, where, "[0x%08x, 0x%08llx) is outside %s [0x%08x, 0x%08llx)", a,
                            (unsigned long long)e, map->ram[0].name ? map->ram[0].name : "RAM",
                            map->ram[0].base, (unsigned long long)map->ram[0].base + map->ram[0].size);
            else
                rc = refuse(c, where, "[0x%08x, 0x%08llx) is not inside any RAM region", a,
                            (unsigned long long)e);
            goto out;
        }
        segs[n++] = (seg_t){ .idx = i, .addr = a, .end = e, .off = p->p_offset, .filesz = p->p_filesz,
                             .memsz = p->p_memsz, .flags = p->p_flags, .ram = r };
    }
    if (n == 0) {
        rc = refuse(c, "ELF header", "no PT_LOAD segment with p_memsz > 0: nothing to load");
        goto out;
    }

    /* Pass 2: the segments together — no two may overlap. */
    qsort(segs, n, sizeof(*segs), seg_cmp);
    for (unsigned k = 1; k < n; k++) {
        const seg_t *lo = &segs[k - 1], *hi = &segs[k];
        if (hi->addr < lo->end) {
            const seg_t *later = lo->idx > hi->idx ? lo : hi, *earlier = lo->idx > hi->idx ? hi : lo;
            char where[32];
            snprintf(where, sizeof(where), "segment %u", later->idx);
            rc = refuse(c, where, "[0x%08x, 0x%08llx) overlaps segment %u [0x%08x, 0x%08llx)", later->addr,
                        (unsigned long long)later->end, earlier->idx, earlier->addr,
                        (unsigned long long)earlier->end);
            goto out;
        }
    }

    /* The entry point: an instruction in the file-backed part of a PF_X segment. */
    if (entry % INSN_ALIGN) {
        rc = refuse(c, "ELF header e_entry", "entry point 0x%08x is not %u-byte aligned", entry, INSN_ALIGN);
        goto out;
    }
    bool entry_ok = false;
    for (unsigned k = 0; k < n && !entry_ok; k++)
        entry_ok = (segs[k].flags & PF_X) && entry >= segs[k].addr &&
                   (uint64_t)entry + INSN_ALIGN <= (uint64_t)segs[k].addr + segs[k].filesz;
    if (!entry_ok) {
        rc = refuse(c, "ELF header e_entry",
                    "entry point 0x%08x is not inside the file-backed part of a loaded executable (PF_X) segment",
                    entry);
        goto out;
    }

    /* Everything holds: copy. */
    elf_load_info_t li = { .entry = entry, .nload = n, .lo = segs[0].addr, .hi = 0 };
    for (unsigned k = 0; k < n; k++) {
        const seg_t *s = &segs[k];
        uint8_t *dst = map->ram[s->ram].host + (s->addr - map->ram[s->ram].base);
        if (s->filesz)
            memcpy(dst, buf + s->off, s->filesz);
        memset(dst + s->filesz, 0, s->memsz - s->filesz);
        li.copied += s->filesz;
        li.zeroed += s->memsz - s->filesz;
        if (s->end > li.hi)
            li.hi = s->end;
    }
    if (info)
        *info = li;
    rc = 0;

out:
    free(segs);
    elf_end(elf);
    return rc;
}

static int check_map(const ctx_t *c, const elf_memmap_t *map)
{
    if (!map || (map->n_ram && !map->ram) || (map->n_windows && !map->windows)) {
        if (c->err && c->errlen)
            snprintf(c->err, c->errlen, "%s: bad memory map argument", c->name);
        return -EINVAL;
    }
    for (size_t r = 0; r < map->n_ram; r++) {
        if (!map->ram[r].host && map->ram[r].size) {
            if (c->err && c->errlen)
                snprintf(c->err, c->errlen, "%s: RAM region %zu has no host memory", c->name, r);
            return -EINVAL;
        }
    }
    return 0;
}

int elf_load_mem(const void *buf, size_t len, const char *name, const elf_memmap_t *map,
                 elf_load_info_t *info, char *err, size_t errlen)
{
    const ctx_t c = { .name = name ? name : "<memory>", .err = err, .errlen = errlen };
    int rc = check_map(&c, map);
    if (rc)
        return rc;
    if (!buf && len) {
        if (err && errlen)
            snprintf(err, errlen, "%s: no buffer", c.name);
        return -EINVAL;
    }
    /* libelf wants a writable, aligned image; the caller's stays untouched. */
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return fail_errno(&c, ENOMEM, "reading the image");
    if (len)
        memcpy(copy, buf, len);
    rc = load_buf(copy, len, &c, map, info);
    free(copy);
    return rc;
}

int elf_load_file(const char *path, const elf_memmap_t *map, elf_load_info_t *info, char *err,
                  size_t errlen)
{
    const ctx_t c = { .name = path ? path : "(null)", .err = err, .errlen = errlen };
    if (!path) {
        if (err && errlen)
            snprintf(err, errlen, "(null): no file name");
        return -EINVAL;
    }
    int rc = check_map(&c, map);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno(&c, errno, "cannot open");
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = fail_errno(&c, errno, "cannot stat");
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return refuse(&c, "file", "not a regular file");
    }
    if ((uint64_t)st.st_size > ELF_LOAD_MAX_FILE) {
        close(fd);
        if (err && errlen)
            snprintf(err, errlen, "%s: file: %lld bytes, more than the %u a firmware image may have", path,
                     (long long)st.st_size, ELF_LOAD_MAX_FILE);
        return -EFBIG;
    }
    size_t len = (size_t)st.st_size;
    char *buf = malloc(len ? len : 1);
    if (!buf) {
        close(fd);
        return fail_errno(&c, ENOMEM, "reading the file");
    }
    size_t got = 0;
    while (got < len) {
        ssize_t k = read(fd, buf + got, len - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            rc = fail_errno(&c, errno, "cannot read");
            free(buf);
            close(fd);
            return rc;
        }
        if (k == 0)
            break; /* shrank under us: validate what we have */
        got += (size_t)k;
    }
    close(fd);
    rc = load_buf(buf, got, &c, map, info);
    free(buf);
    return rc;
}
