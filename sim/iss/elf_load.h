/* elf_load.h — load a firmware ELF image into the firmware core's memory.
 *
 * The caller describes its memory map: the RAM regions an image may be loaded
 * into (guest base, size, host pointer) and the windows no segment may touch
 * (device registers: base, size, name). The loader reads the image with
 * libelf, validates the whole of it, and only then copies: on any refusal not
 * one byte of RAM has been written.
 *
 * What is accepted: ELFCLASS32, ELFDATA2LSB, EV_CURRENT (in e_ident and
 * e_version), EM_RISCV, ET_EXEC, program headers of sizeof(Elf32_Phdr), at
 * least one PT_LOAD segment with p_memsz > 0. Every PT_LOAD segment is placed
 * at its p_paddr (the load address, what a boot ROM copying the image would
 * use); since this core has no MMU and the start-up code does no copy-down,
 * a segment whose p_vaddr differs from p_paddr is refused, so the two can
 * never disagree. Bytes [p_filesz, p_memsz) are zero-filled (.bss).
 * PT_LOAD segments with p_memsz == 0 are ignored (and not counted); other
 * program header types are ignored.
 *
 * Refusals (each message names the file, then "ELF header" with the field or
 * "segment N" with N the program header index, then the reason):
 *   - not an ELF file (bad magic), truncated identification / header /
 *     program header table / segment data (anything past end of file);
 *   - wrong EI_CLASS, EI_DATA, EI_VERSION, e_version, e_machine, e_type;
 *   - e_flags bits the caller rejects (e.g. EF_RISCV_RVC for an RV32IM core);
 *   - e_phentsize != sizeof(Elf32_Phdr), e_phnum == 0 or PN_XNUM, e_phoff 0
 *     or not 4-byte aligned;
 *   - segment: p_filesz > p_memsz; p_align not 0 or a power of two;
 *     p_vaddr != p_offset modulo p_align; p_vaddr != p_paddr; an executable
 *     segment not 4-byte aligned; p_paddr + p_memsz past 2^32 (wrap-around);
 *     overlapping a forbidden window (named); not inside one RAM region;
 *     overlapping another PT_LOAD segment (both named);
 *   - no PT_LOAD segment with p_memsz > 0;
 *   - e_entry not 4-byte aligned, or not inside a loaded PF_X segment.
 *
 * All range checks are done in 64-bit arithmetic on 32-bit ELF fields, so
 * none can overflow. The loader never aborts on a bad image.
 */
#ifndef ELF_LOAD_H
#define ELF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A RAM region an image may be loaded into. */
typedef struct elf_ram {
    uint32_t base; /**< guest address of host[0] */
    uint32_t size; /**< bytes; base + size may be 2^32 but not beyond */
    uint8_t *host; /**< host memory backing [base, base + size) */
    const char *name; /**< for messages; NULL reads "RAM" */
} elf_ram_t;

/** A guest address window no segment may overlap (device registers). */
typedef struct elf_window {
    uint32_t base;
    uint32_t size; /**< bytes */
    const char *name; /**< named in the refusal, e.g. "console" */
} elf_window_t;

/** The caller's memory map. Windows are checked in order, so list the most
 *  specific ones (a single register block) before a catch-all window. */
typedef struct elf_memmap {
    const elf_ram_t *ram;
    size_t n_ram;
    const elf_window_t *windows;
    size_t n_windows;
    uint32_t reject_eflags; /**< e_flags bits that make the image unusable */
} elf_memmap_t;

/** e_flags an RV32IM core without C, F, D, E or TSO support refuses:
 *  EF_RISCV_RVC | EF_RISCV_FLOAT_ABI | EF_RISCV_RVE | EF_RISCV_TSO. */
#define ELF_LOAD_RV32IM_REJECT_EFLAGS 0x001fu

/** What was loaded. */
typedef struct elf_load_info {
    uint32_t entry;   /**< e_entry: where to reset the core */
    unsigned nload;   /**< PT_LOAD segments loaded (p_memsz > 0) */
    uint32_t copied;  /**< bytes copied from the file (sum of p_filesz) */
    uint32_t zeroed;  /**< bytes zero-filled (sum of p_memsz - p_filesz) */
    uint32_t lo;      /**< lowest loaded address */
    uint64_t hi;      /**< highest loaded address + 1 (up to 2^32) */
} elf_load_info_t;

/** Largest file elf_load_file() reads (bytes); a firmware image is far smaller. */
#define ELF_LOAD_MAX_FILE (64u << 20)

/** Load the ELF file at path into the RAM regions of map.
 *  Returns 0 and fills *info (may be NULL); or, with RAM untouched:
 *  -ENOEXEC the image is refused, -ENOENT/-EACCES/-EIO/-EFBIG the file could
 *  not be read, -ENOMEM, -EINVAL bad arguments. On error, err (may be NULL)
 *  receives a NUL-terminated message "path: where: reason" (truncated to
 *  errlen). */
int elf_load_file(const char *path, const elf_memmap_t *map, elf_load_info_t *info,
                  char *err, size_t errlen);

/** As elf_load_file(), for an image already in memory (len bytes at buf,
 *  not modified); name stands for the file in messages (NULL: "<memory>"). */
int elf_load_mem(const void *buf, size_t len, const char *name, const elf_memmap_t *map,
                 elf_load_info_t *info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* ELF_LOAD_H */
