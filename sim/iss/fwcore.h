/* fwcore.h — the HCA's firmware core: RAM, the RV32IM ISS, the debug
 * console, the ELF loader, and hooks for the device's register blocks.
 *
 * Memory map seen by the core (ABI, hca_abi.h):
 *   [FW_RAM_BASE, +FW_RAM_SIZE)   RAM, owned here: code, data, stack
 *   [CONSOLE_BASE, +8)            console: TX (write: one byte, low 8 bits
 *                                 of any 1/2/4-byte store), EXIT (4-byte
 *                                 write: halt with that exit code); reads 0
 *   MMIO hooks                    register blocks the device maps with
 *                                 fwcore_map_mmio() (e.g. regs fwp at FWP_BASE)
 *   anything else                 access fault (mcause 5 load / 7 store)
 * No ELF segment may touch the device-register window [DEVREG_BASE,
 * +DEVREG_SIZE), the console or a mapped hook (the loader names it).
 *
 * Time: one core cycle = one device cycle (rv32.h). fwcore_run() runs the
 * core for a cycle budget; a hook answering RV32_BUS_STALL makes it return
 * RV32_STOP_STALL and the access is retried on the next call.
 *
 * Functions returning int return 0 or a negative errno; they never abort on
 * bad arguments or a bad image.
 */
#ifndef FWCORE_H
#define FWCORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rv32.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fwcore fwcore_t;

/** Creation parameters; all zero (or a NULL pointer) gives the defaults. */
typedef struct fwcore_config {
    rv32_costs_t costs;   /**< all 0: rv32_default_costs() */
    size_t console_max;   /**< console bytes kept (later ones are counted, dropped); 0: 1 MiB */
    FILE *console_echo;   /**< also write every console byte here (e.g. stdout); NULL: no echo */
} fwcore_config_t;

/** A device register block in the core's address space. Offsets passed to
 *  the callbacks are from base; accesses are naturally aligned, 1/2/4 bytes
 *  (rv32_bus_t). The callbacks answer RV32_BUS_OK, RV32_BUS_FAULT or
 *  RV32_BUS_STALL (no side effect then: the access is retried). Either may
 *  be NULL: that direction faults. */
typedef struct fwcore_mmio {
    const char *name; /**< named in loader refusals and fwcore_describe(); borrowed */
    uint32_t base;
    uint32_t size;    /**< bytes, > 0 */
    void *ctx;
    int (*load)(void *ctx, uint32_t offset, unsigned size, uint32_t *val);
    int (*store)(void *ctx, uint32_t offset, unsigned size, uint32_t val);
} fwcore_mmio_t;

/** Register blocks fwcore_map_mmio() accepts. */
#define FWCORE_MAX_MMIO 8

/** Make a core with its RAM (zeroed) and console; no image loaded, so it
 *  must be given one with fwcore_load() before fwcore_run().
 *  0, -EINVAL, -ENOMEM. cfg may be NULL. */
int fwcore_create(fwcore_t **out, const fwcore_config_t *cfg);
void fwcore_destroy(fwcore_t *fc);

/** Map a register block (copied). 0; -EINVAL when size is 0, the block wraps
 *  past 2^32, or overlaps RAM, the console or another block; -ENOSPC past
 *  FWCORE_MAX_MMIO. */
int fwcore_map_mmio(fwcore_t *fc, const fwcore_mmio_t *m);

/** Load an ELF image (elf_load.h): RAM is zeroed, the segments copied, the
 *  console cleared and the core reset at the entry point. On a refusal
 *  (-ENOEXEC, or a file error) nothing changes and err (may be NULL)
 *  receives the loader's message "path: segment N: reason". */
int fwcore_load(fwcore_t *fc, const char *path, char *err, size_t errlen);
/** As fwcore_load() for an image in memory; name stands for the file. */
int fwcore_load_mem(fwcore_t *fc, const void *buf, size_t len, const char *name, char *err, size_t errlen);

/** Reset the core at the loaded image's entry point (RAM is kept: .data is
 *  not re-initialised) and clear the console. -ENOENT when nothing is loaded. */
int fwcore_reset(fwcore_t *fc);

/** Run the core for up to cycle_budget core cycles (see rv32_run()).
 *  Returns the stop reason; RV32_STOP_TRAP also when no image is loaded. */
rv32_stop_t fwcore_run(fwcore_t *fc, uint64_t cycle_budget);

/** Run until the core halts, traps without a handler, or has consumed
 *  max_cycles core cycles in this call. Stalls are charged one idle cycle
 *  each and retried; WFI sleeps out the rest of the budget (nothing can wake
 *  the core without a device). Returns the last stop reason. */
rv32_stop_t fwcore_run_until_halt(fwcore_t *fc, uint64_t max_cycles);

/** 1 when the core halted (console EXIT or rv32_halt()), and its exit code. */
int fwcore_halted(const fwcore_t *fc);
uint32_t fwcore_exit_code(const fwcore_t *fc);

/** The console bytes kept since the last load or reset, NUL-terminated. */
const char *fwcore_console(const fwcore_t *fc);
size_t fwcore_console_len(const fwcore_t *fc);
/** Bytes dropped because the buffer was full. */
uint64_t fwcore_console_dropped(const fwcore_t *fc);
void fwcore_console_clear(fwcore_t *fc);

/** One line on the core's state for a log or a failing test: stop reason,
 *  pc, exit code or trap (cause name, mepc, mtval), cycles, instructions. */
void fwcore_describe(const fwcore_t *fc, rv32_stop_t stop, char *buf, size_t len);

/** The ISS (registers, CSRs, interrupts, cycle counts) and the RAM
 *  (FW_RAM_SIZE bytes at FW_RAM_BASE). */
rv32_t *fwcore_cpu(fwcore_t *fc);
uint8_t *fwcore_ram(fwcore_t *fc);
/** Entry point of the loaded image; 0 when none. */
uint32_t fwcore_entry(const fwcore_t *fc);

#ifdef __cplusplus
}
#endif
#endif /* FWCORE_H */
