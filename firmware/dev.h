/* dev.h — the firmware's view of the device: register access, the translation
 * unit's firmware port, the firmware DMA engine and the command mailbox.
 * Every address and field comes from the ABI (hca_abi.h). */
#ifndef FW_DEV_H
#define FW_DEV_H

#include <stdint.h>

#include "hca_abi.h"

#ifdef FW_HOST_REGS
/* Host unit tests (testbench/test_fwmm.cc): the registers are a mock's
 * functions, and a firmware RAM address is a handle the mock hands out for a
 * host pointer (pointers are 64 bits wide there). */
uint32_t reg_read(uint32_t addr);
void reg_write(uint32_t addr, uint32_t val);
uint32_t fw_local_addr(void *p);
#else
static inline uint32_t reg_read(uint32_t addr)
{
    return *(volatile uint32_t *)(uintptr_t)addr;
}

static inline void reg_write(uint32_t addr, uint32_t val)
{
    *(volatile uint32_t *)(uintptr_t)addr = val;
}

/** The firmware RAM address of p, as the device's DMA engines take it. */
static inline uint32_t fw_local_addr(void *p)
{
    return (uint32_t)(uintptr_t)p;
}
#endif

/** Read the register at addr; 0, or -1 when the bus faulted (no such block).
 *  Only for probing: it takes over the trap hook for the access. */
int reg_probe(uint32_t addr, uint32_t *val);
/** A probe around several accesses: between probe_begin() and probe_end() a
 *  load/store access fault skips the instruction; probe_end() gives the trap
 *  hook back and returns -1 when any access faulted, else 0. */
void probe_begin(void);
int probe_end(void);

/* ---- translation unit firmware port (regs fwp) ---- */

/** Run one table command and wait for it; returns its fwp_result. */
unsigned fwp_run(unsigned op, uint32_t index);
/** Stage an MPT entry for WRITE_MPT / read the staging after READ_MPT. */
void fwp_stage_mpt(const hca_mpt_entry_t *e);
void fwp_fetch_mpt(hca_mpt_entry_t *e);
/** MTT[index] <- one present page at bus address addr (aligned to 4 KiB at least). */
unsigned fwp_write_page(uint32_t index, uint64_t addr);
/** MTT[index] <- word as is (the KLM words of an indirect MR). */
unsigned fwp_write_mtt(uint32_t index, uint64_t word);
/** log2 of the table sizes the unit was built with. */
unsigned fwp_mpt_log2(void);
unsigned fwp_mtt_log2(void);
/** Set the KLM walk's depth (CONFIG; the unit refuses values outside
 *  1..MAX_INDIRECTION and keeps its own); returns the depth in force. */
unsigned fwp_set_max_indirection(unsigned depth);

/* ---- the WQE engine's context port (regs ctx) ---- */

/** Stage words 32-bit words of a context (qp_ctx, cq_ctx) in ctx DATA. */
void ctx_stage(const void *data, unsigned words);
/** Read words staging words back after READ_QPC / READ_CQC. */
void ctx_fetch(void *data, unsigned words);
/** Run one ctx command (enum ctx_op) and wait for it; returns its fwp_result
 *  (BAD_OP from a device engine without a WQE engine), or BUSY when the port
 *  never answered within CTX_POLL_LIMIT status reads. */
unsigned ctx_run(unsigned op, uint32_t index);
#define CTX_POLL_LIMIT 100000u

/* ---- firmware DMA (regs fdma) ---- */

/** Copy len bytes (1..FDMA_MAX_LEN) host[addr] -> local (write = 0) or local -> host (write = 1).
 *  0, or -1 on a bus error or bad arguments. */
int fdma_copy(uint64_t host, void *local, uint32_t len, int write);
/** fdma_copy in two halves, so the core can work while the bus does:
 *  fdma_start returns -1 for bad arguments (nothing started), else 0; every
 *  started transfer must be ended by fdma_wait (0, or -1 on a bus error)
 *  before the next starts. */
int fdma_start(uint64_t host, void *local, uint32_t len, int write);
int fdma_wait(void);

/* ---- port sequencer (regs fseq) ---- */

/** The sequencer's name for the port register at firmware address addr. */
#define FSEQ_PORT(addr) ((uint32_t)(addr) - HCA_DEVREG_BASE)
/** The GO word that runs count entries of prog. */
static inline uint32_t fseq_go(const hca_fseq_entry_t *prog, unsigned count)
{
    return HCA_FSEQ_GO_ENTRY_PUT((fw_local_addr((void *)prog) - HCA_FW_RAM_BASE) / sizeof *prog) |
           HCA_FSEQ_GO_COUNT_PUT(count);
}
/** Run count entries of prog (8-byte aligned, in RAM; untouched until it
 *  ends). The sequencer must be idle (fseq_wait). Inline: one store (GO) on
 *  the event service's fast paths. */
static inline void fseq_start(const hca_fseq_entry_t *prog, unsigned count)
{
    reg_write(HCA_FW_FSEQ_BASE + HCA_FSEQ_GO, fseq_go(prog, count));
}
/** Wait for the sequencer to be idle; returns its STATUS (IDLE: one read,
 *  held by the device until the program ends). */
static inline uint32_t fseq_wait(void)
{
    return reg_read(HCA_FW_FSEQ_BASE + HCA_FSEQ_IDLE);
}

#endif /* FW_DEV_H */
