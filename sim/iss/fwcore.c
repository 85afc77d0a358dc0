/* fwcore.c — the firmware core: RAM, ISS, console, loader, MMIO hooks (see fwcore.h). */
#include "fwcore.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf_load.h"
#include "hca_abi.h"

#define CONSOLE_SIZE 8u                    /* TX, EXIT */
#define CONSOLE_MAX_DEFAULT (1u << 20)

struct fwcore {
    rv32_t *cpu;
    uint8_t *ram;
    rv32_bus_t bus;
    fwcore_mmio_t mmio[FWCORE_MAX_MMIO];
    unsigned n_mmio;
    uint32_t entry;
    int loaded;
    int ram_zero;       /* RAM still as calloc left it: nothing loaded, no pointer to it handed out */
    char *con;          /* console_max + 1 bytes, NUL-terminated */
    size_t con_len, con_max;
    uint64_t con_dropped;
    FILE *echo;
};

static int in_window(uint32_t addr, uint32_t base, uint32_t size)
{
    return addr - base < size; /* unsigned: no overflow */
}

static void console_byte(fwcore_t *fc, uint8_t c)
{
    if (fc->con_len < fc->con_max) {
        fc->con[fc->con_len++] = (char)c;
        fc->con[fc->con_len] = '\0';
    } else {
        fc->con_dropped++;
    }
    if (fc->echo) {
        fputc(c, fc->echo);
        if (c == '\n')
            fflush(fc->echo);
    }
}

static int bus_load(void *ctx, uint32_t addr, unsigned size, uint32_t *val)
{
    fwcore_t *fc = ctx;
    if (in_window(addr, HCA_CONSOLE_BASE, CONSOLE_SIZE)) {
        *val = 0; /* write-only registers read 0 */
        return RV32_BUS_OK;
    }
    for (unsigned i = 0; i < fc->n_mmio; i++) {
        const fwcore_mmio_t *m = &fc->mmio[i];
        if (in_window(addr, m->base, m->size))
            return m->load ? m->load(m->ctx, addr - m->base, size, val) : RV32_BUS_FAULT;
    }
    return RV32_BUS_FAULT;
}

static int bus_store(void *ctx, uint32_t addr, unsigned size, uint32_t val)
{
    fwcore_t *fc = ctx;
    if (in_window(addr, HCA_CONSOLE_BASE, CONSOLE_SIZE)) {
        const uint32_t off = addr - HCA_CONSOLE_BASE;
        if (off == HCA_CONSOLE_TX) {
            console_byte(fc, (uint8_t)val);
            return RV32_BUS_OK;
        }
        if (off == HCA_CONSOLE_EXIT && size == 4) {
            rv32_halt(fc->cpu, val);
            return RV32_BUS_OK;
        }
        return RV32_BUS_FAULT; /* a part of EXIT, or a byte inside TX */
    }
    for (unsigned i = 0; i < fc->n_mmio; i++) {
        const fwcore_mmio_t *m = &fc->mmio[i];
        if (in_window(addr, m->base, m->size))
            return m->store ? m->store(m->ctx, addr - m->base, size, val) : RV32_BUS_FAULT;
    }
    return RV32_BUS_FAULT;
}

int fwcore_create(fwcore_t **out, const fwcore_config_t *cfg)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    static const fwcore_config_t defaults;
    if (!cfg)
        cfg = &defaults;
    fwcore_t *fc = calloc(1, sizeof(*fc));
    if (!fc)
        return -ENOMEM;
    fc->con_max = cfg->console_max ? cfg->console_max : CONSOLE_MAX_DEFAULT;
    fc->echo = cfg->console_echo;
    fc->ram = calloc(1, HCA_FW_RAM_SIZE);
    fc->ram_zero = 1;
    fc->con = calloc(1, fc->con_max + 1);
    if (!fc->ram || !fc->con) {
        fwcore_destroy(fc);
        return -ENOMEM;
    }
    fc->bus = (rv32_bus_t){ .ctx = fc, .load = bus_load, .store = bus_store };
    const rv32_config_t rc = { .ram = fc->ram, .ram_base = HCA_FW_RAM_BASE, .ram_size = HCA_FW_RAM_SIZE,
                               .bus = &fc->bus, .costs = cfg->costs };
    int err = rv32_create(&fc->cpu, &rc);
    if (err) {
        fwcore_destroy(fc);
        return err;
    }
    *out = fc;
    return 0;
}

void fwcore_destroy(fwcore_t *fc)
{
    if (!fc)
        return;
    rv32_destroy(fc->cpu);
    free(fc->ram);
    free(fc->con);
    free(fc);
}

static int overlaps(uint32_t a, uint32_t asize, uint32_t b, uint32_t bsize)
{
    return (uint64_t)a < (uint64_t)b + bsize && (uint64_t)b < (uint64_t)a + asize;
}

int fwcore_map_mmio(fwcore_t *fc, const fwcore_mmio_t *m)
{
    if (!fc || !m || m->size == 0 || (uint64_t)m->base + m->size > ((uint64_t)1 << 32))
        return -EINVAL;
    if (overlaps(m->base, m->size, HCA_FW_RAM_BASE, HCA_FW_RAM_SIZE) ||
        overlaps(m->base, m->size, HCA_CONSOLE_BASE, CONSOLE_SIZE))
        return -EINVAL;
    for (unsigned i = 0; i < fc->n_mmio; i++)
        if (overlaps(m->base, m->size, fc->mmio[i].base, fc->mmio[i].size))
            return -EINVAL;
    if (fc->n_mmio == FWCORE_MAX_MMIO)
        return -ENOSPC;
    fc->mmio[fc->n_mmio++] = *m;
    return 0;
}

/* The loader's view of the map: RAM, then the windows no segment may touch,
 * most specific first (each mapped block, the console, all device registers). */
static int load_common(fwcore_t *fc, const char *path, const void *buf, size_t len, const char *name,
                       char *err, size_t errlen)
{
    if (!fc)
        return -EINVAL;
    /* RAM stays as it was on a refusal, and holds only the image after a
     * load: the loader writes nothing before every check passed, so RAM
     * still all zero takes the image in place (its pages untouched but the
     * image's); otherwise it goes through a zeroed copy. */
    uint8_t *scratch = fc->ram_zero ? fc->ram : calloc(1, HCA_FW_RAM_SIZE);
    if (!scratch)
        return -ENOMEM;
    elf_ram_t ram = { HCA_FW_RAM_BASE, HCA_FW_RAM_SIZE, scratch, "firmware RAM" };
    elf_window_t win[FWCORE_MAX_MMIO + 2];
    size_t n = 0;
    for (unsigned i = 0; i < fc->n_mmio; i++)
        win[n++] = (elf_window_t){ fc->mmio[i].base, fc->mmio[i].size,
                                   fc->mmio[i].name ? fc->mmio[i].name : "device register block" };
    win[n++] = (elf_window_t){ HCA_CONSOLE_BASE, CONSOLE_SIZE, "console" };
    win[n++] = (elf_window_t){ HCA_DEVREG_BASE, HCA_DEVREG_SIZE, "device registers" };
    const elf_memmap_t map = { &ram, 1, win, n, ELF_LOAD_RV32IM_REJECT_EFLAGS };
    elf_load_info_t info;
    int rc = path ? elf_load_file(path, &map, &info, err, errlen)
                  : elf_load_mem(buf, len, name, &map, &info, err, errlen);
    if (rc == 0) {
        if (scratch != fc->ram)
            memcpy(fc->ram, scratch, HCA_FW_RAM_SIZE);
        fc->ram_zero = 0;
        fc->entry = info.entry;
        fc->loaded = 1;
        fwcore_reset(fc);
    }
    if (scratch != fc->ram)
        free(scratch);
    return rc;
}

int fwcore_load(fwcore_t *fc, const char *path, char *err, size_t errlen)
{
    if (!path)
        return -EINVAL;
    return load_common(fc, path, NULL, 0, NULL, err, errlen);
}

int fwcore_load_mem(fwcore_t *fc, const void *buf, size_t len, const char *name, char *err, size_t errlen)
{
    return load_common(fc, NULL, buf, len, name, err, errlen);
}

int fwcore_reset(fwcore_t *fc)
{
    if (!fc)
        return -EINVAL;
    if (!fc->loaded)
        return -ENOENT;
    rv32_reset(fc->cpu, fc->entry);
    fwcore_console_clear(fc);
    return 0;
}

rv32_stop_t fwcore_run(fwcore_t *fc, uint64_t cycle_budget)
{
    if (!fc || !fc->loaded)
        return RV32_STOP_TRAP;
    return rv32_run(fc->cpu, cycle_budget);
}

rv32_stop_t fwcore_run_until_halt(fwcore_t *fc, uint64_t max_cycles)
{
    if (!fc || !fc->loaded)
        return RV32_STOP_TRAP;
    const uint64_t start = rv32_cycles(fc->cpu);
    rv32_stop_t s = RV32_STOP_BUDGET;
    for (;;) {
        const uint64_t used = rv32_cycles(fc->cpu) - start;
        if (used >= max_cycles)
            return s;
        s = rv32_run(fc->cpu, max_cycles - used);
        if (s == RV32_STOP_HALT || s == RV32_STOP_TRAP)
            return s;
        if (s == RV32_STOP_STALL)
            rv32_add_cycles(fc->cpu, 1);
    }
}

int fwcore_halted(const fwcore_t *fc)
{
    return fc && rv32_halted(fc->cpu);
}

uint32_t fwcore_exit_code(const fwcore_t *fc)
{
    return fc ? rv32_exit_code(fc->cpu) : 0;
}

const char *fwcore_console(const fwcore_t *fc)
{
    return fc ? fc->con : "";
}

size_t fwcore_console_len(const fwcore_t *fc)
{
    return fc ? fc->con_len : 0;
}

uint64_t fwcore_console_dropped(const fwcore_t *fc)
{
    return fc ? fc->con_dropped : 0;
}

void fwcore_console_clear(fwcore_t *fc)
{
    if (!fc)
        return;
    fc->con_len = 0;
    fc->con[0] = '\0';
    fc->con_dropped = 0;
}

void fwcore_describe(const fwcore_t *fc, rv32_stop_t stop, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    if (!fc) {
        snprintf(buf, len, "no core");
        return;
    }
    if (!fc->loaded) {
        snprintf(buf, len, "no image loaded");
        return;
    }
    int n = snprintf(buf, len, "%s at pc 0x%08x", rv32_stop_name(stop), rv32_pc(fc->cpu));
    if (n >= 0 && (size_t)n < len && rv32_halted(fc->cpu))
        n += snprintf(buf + n, len - (size_t)n, ", exit code 0x%08x (%u)", rv32_exit_code(fc->cpu),
                      rv32_exit_code(fc->cpu));
    uint32_t cause, epc, tval;
    if (n >= 0 && (size_t)n < len && rv32_last_trap(fc->cpu, &cause, &epc, &tval))
        n += snprintf(buf + n, len - (size_t)n, ", last trap: %s (mcause 0x%x) at 0x%08x, mtval 0x%08x%s",
                      rv32_cause_name(cause), cause, epc, tval,
                      stop == RV32_STOP_TRAP ? " — no trap handler (mtvec 0)" : "");
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %llu cycles, %llu instructions",
                 (unsigned long long)rv32_cycles(fc->cpu), (unsigned long long)rv32_instret(fc->cpu));
}

rv32_t *fwcore_cpu(fwcore_t *fc)
{
    if (!fc)
        return NULL;
    fc->ram_zero = 0; /* the caller may store to RAM through it */
    return fc->cpu;
}

uint8_t *fwcore_ram(fwcore_t *fc)
{
    if (!fc)
        return NULL;
    fc->ram_zero = 0;
    return fc->ram;
}

uint32_t fwcore_entry(const fwcore_t *fc)
{
    return fc && fc->loaded ? fc->entry : 0;
}
