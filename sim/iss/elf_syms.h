/* elf_syms.h — the function symbols of a firmware image (libelf), for
 * attributing firmware cycles to functions (hcasim run --fw-profile). */
#ifndef ELF_SYMS_H
#define ELF_SYMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct elf_func {
    uint32_t addr, size;
    char name[48]; /**< cut to fit */
} elf_func_t;

/** The STT_FUNC symbols of the ELF file at path, sorted by address, in *out
 *  (free() it) and their count in *n. 0, or -ENOENT/-EACCES (open),
 *  -ENOEXEC (not an ELF with a symbol table), -ENOMEM, -EINVAL. */
int elf_read_functions(const char *path, elf_func_t **out, size_t *n);

/** The function holding addr in a sorted list (addr in [f.addr, f.addr +
 *  max(size, 1))), or NULL. */
const elf_func_t *elf_func_at(const elf_func_t *f, size_t n, uint32_t addr);

#ifdef __cplusplus
}
#endif
#endif /* ELF_SYMS_H */
