/* dev.c — firmware port, firmware DMA and console access. */
#include "dev.h"
#include "start.h"

#define FWP(off) (HCA_FWP_BASE + (off))
#define FDMA(off) (HCA_FDMA_BASE + (off))
#define CTXP(off) (HCA_FW_CTX_BASE + (off))

unsigned fwp_run(unsigned op, uint32_t index)
{
    reg_write(FWP(HCA_FWP_CMD), HCA_FWP_CMD_OP_PUT(op) | HCA_FWP_CMD_INDEX_PUT(index));
    uint32_t st;
    do
        st = reg_read(FWP(HCA_FWP_STATUS));
    while (HCA_FWP_STATUS_BUSY_GET(st));
    return HCA_FWP_STATUS_RESULT_GET(st);
}

void fwp_stage_mpt(const hca_mpt_entry_t *e)
{
    const uint32_t *w = (const uint32_t *)e;
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT; i++)
        reg_write(FWP(HCA_FWP_MPT_DATA + 4 * i), w[i]);
}

void fwp_fetch_mpt(hca_mpt_entry_t *e)
{
    uint32_t *w = (uint32_t *)e;
    for (unsigned i = 0; i < HCA_FWP_MPT_DATA_COUNT; i++)
        w[i] = reg_read(FWP(HCA_FWP_MPT_DATA + 4 * i));
}

unsigned fwp_write_mtt(uint32_t index, uint64_t word)
{
    reg_write(FWP(HCA_FWP_MTT_DATA), (uint32_t)word);
    reg_write(FWP(HCA_FWP_MTT_DATA + 4), (uint32_t)(word >> 32));
    return fwp_run(HCA_FWP_OP_WRITE_MTT, index);
}

unsigned fwp_write_page(uint32_t index, uint64_t addr)
{
    hca_mtt_entry_t m = {0};
    hca_mtt_entry_set_present(&m, 1);
    hca_mtt_entry_set_pfn(&m, addr >> 12);
    return fwp_write_mtt(index, m.word);
}

unsigned fwp_mpt_log2(void)
{
    return HCA_FWP_SIZES_MPT_LOG2_GET(reg_read(FWP(HCA_FWP_SIZES)));
}

unsigned fwp_mtt_log2(void)
{
    return HCA_FWP_SIZES_MTT_LOG2_GET(reg_read(FWP(HCA_FWP_SIZES)));
}

unsigned fwp_set_max_indirection(unsigned depth)
{
    reg_write(FWP(HCA_FWP_CONFIG), HCA_FWP_CONFIG_MAX_INDIRECTION_PUT(depth));
    return HCA_FWP_CONFIG_MAX_INDIRECTION_GET(reg_read(FWP(HCA_FWP_CONFIG)));
}

void ctx_stage(const void *data, unsigned words)
{
    const uint32_t *w = data;
    for (unsigned i = 0; i < words; i++)
        reg_write(CTXP(HCA_CTX_DATA + 4 * i), w[i]);
}

void ctx_fetch(void *data, unsigned words)
{
    uint32_t *w = data;
    for (unsigned i = 0; i < words; i++)
        w[i] = reg_read(CTXP(HCA_CTX_DATA + 4 * i));
}

unsigned ctx_run(unsigned op, uint32_t index)
{
    reg_write(CTXP(HCA_CTX_CMD), HCA_CTX_CMD_OP_PUT(op) | HCA_CTX_CMD_INDEX_PUT(index));
    for (uint32_t n = 0; n < CTX_POLL_LIMIT; n++) {
        uint32_t st = reg_read(CTXP(HCA_CTX_STATUS));
        if (!HCA_CTX_STATUS_BUSY_GET(st))
            return HCA_CTX_STATUS_RESULT_GET(st);
    }
    return HCA_FWP_RESULT_BUSY;
}


int fdma_start(uint64_t host, void *local, uint32_t len, int write)
{
    if (len == 0 || len > HCA_FDMA_MAX_LEN)
        return -1;
    reg_write(FDMA(HCA_FDMA_HOST_LO), (uint32_t)host);
    reg_write(FDMA(HCA_FDMA_HOST_HI), (uint32_t)(host >> 32));
    reg_write(FDMA(HCA_FDMA_LOCAL), fw_local_addr(local));
    reg_write(FDMA(HCA_FDMA_LEN), len);
    reg_write(FDMA(HCA_FDMA_CTRL), HCA_FDMA_CTRL_WRITE_PUT(write != 0));
    return 0;
}

int fdma_wait(void)
{
    uint32_t st;
    do
        st = reg_read(FDMA(HCA_FDMA_STATUS));
    while (HCA_FDMA_STATUS_BUSY_GET(st));
    return HCA_FDMA_STATUS_ERROR_GET(st) ? -1 : 0;
}

int fdma_copy(uint64_t host, void *local, uint32_t len, int write)
{
    return fdma_start(host, local, len, write) ? -1 : fdma_wait();
}

/* reg_probe: a device without the block answers the load with a bus fault;
 * the hook skips the instruction and remembers it. */
static volatile uint8_t probe_faulted;

static int probe_hook(fw_trap_frame_t *f)
{
    if (f->mcause != 5u && f->mcause != 7u) /* load / store access fault */
        return 0;
    probe_faulted = 1;
    f->mepc += 4;
    return 1;
}

static fw_trap_hook_t probe_saved_hook;

void probe_begin(void)
{
    probe_saved_hook = fw_trap_hook;
    fw_trap_hook = probe_hook;
    probe_faulted = 0;
}

int probe_end(void)
{
    fw_trap_hook = probe_saved_hook;
    return probe_faulted ? -1 : 0;
}

int reg_probe(uint32_t addr, uint32_t *val)
{
    probe_begin();
    uint32_t v = reg_read(addr);
    if (probe_end())
        return -1;
    *val = v;
    return 0;
}
