/* rv32_bench.c — instructions per second of the RV32IM ISS (make bench-rv32).
 *
 * Two small programs assembled with rv32_asm.h, each run to a console EXIT:
 *   alu:  a checksum loop over 1 KiB of RAM (lw, add, shifts, xor, addi, bne);
 *   call: a loop calling a leaf function (jal/jalr, stack sw/lw, mul, divu).
 * Each runs free (one rv32_run() to the halt) and in device-style quanta of
 * 1, 16 and 256 cycles, the way the harness steps the core between device
 * cycles. Prints host MIPS (retired instructions per host second) and the
 * simulated CPI at the default costs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_abi.h"
#include "rv32.h"
#include "rv32_asm.h"
#include "bench_util.h"

#define RAM_SIZE (64u * 1024u)
#define DATA (HCA_FW_RAM_BASE + 0x1000u)

static rv32_t *g_cpu;

static int bus_load(void *ctx, uint32_t addr, unsigned size, uint32_t *val)
{
    (void)ctx, (void)addr, (void)size;
    *val = 0;
    return RV32_BUS_FAULT;
}

static int bus_store(void *ctx, uint32_t addr, unsigned size, uint32_t val)
{
    (void)ctx, (void)size;
    if (addr != HCA_CONSOLE_BASE + HCA_CONSOLE_EXIT)
        return RV32_BUS_FAULT;
    rv32_halt(g_cpu, val);
    return RV32_BUS_OK;
}

/* Emit word w at *n. */
static uint32_t emit(uint32_t *prog, unsigned *n, uint32_t w)
{
    prog[*n] = w;
    return HCA_FW_RAM_BASE + 4u * (*n)++;
}

static void emit_exit(uint32_t *prog, unsigned *n, uint32_t rs)
{
    emit(prog, n, rv_lui(31, HCA_CONSOLE_BASE >> 12));
    emit(prog, n, rv_sw(rs, 31, HCA_CONSOLE_EXIT));
}

/* Checksum loop; x13 = outer iterations (set by the caller). */
static unsigned build_alu(uint32_t *prog)
{
    unsigned n = 0;
    uint32_t w[2];
    rv_li(w, 10, DATA);
    emit(prog, &n, w[0]);
    emit(prog, &n, w[1]);
    uint32_t outer = emit(prog, &n, rv_addi(14, 10, 0));
    emit(prog, &n, rv_addi(15, 0, 256));
    uint32_t inner = emit(prog, &n, rv_lw(16, 14, 0));
    emit(prog, &n, rv_add(12, 12, 16));
    emit(prog, &n, rv_slli(17, 12, 5));
    emit(prog, &n, rv_xor(12, 12, 17));
    emit(prog, &n, rv_srli(17, 12, 7));
    emit(prog, &n, rv_add(12, 12, 17));
    emit(prog, &n, rv_addi(14, 14, 4));
    emit(prog, &n, rv_addi(15, 15, -1));
    uint32_t at = HCA_FW_RAM_BASE + 4u * n;
    emit(prog, &n, rv_bne(15, 0, (int32_t)(inner - at)));
    emit(prog, &n, rv_addi(13, 13, -1));
    at = HCA_FW_RAM_BASE + 4u * n;
    emit(prog, &n, rv_bne(13, 0, (int32_t)(outer - at)));
    emit_exit(prog, &n, 12);
    return n;
}

/* Call loop; x13 = iterations. f(a0) = (a0 * 2654435761) / 7 + a0 with a stack frame. */
static unsigned build_call(uint32_t *prog)
{
    unsigned n = 0;
    uint32_t w[2];
    rv_li(w, 2, HCA_FW_RAM_BASE + RAM_SIZE); /* sp */
    emit(prog, &n, w[0]);
    emit(prog, &n, w[1]);
    rv_li(w, 18, 2654435761u);
    emit(prog, &n, w[0]);
    emit(prog, &n, w[1]);
    emit(prog, &n, rv_addi(19, 0, 7));
    uint32_t loop = emit(prog, &n, rv_addi(10, 12, 0));
    uint32_t call = emit(prog, &n, 0);
    emit(prog, &n, rv_add(12, 12, 10));
    emit(prog, &n, rv_addi(13, 13, -1));
    uint32_t at = HCA_FW_RAM_BASE + 4u * n;
    emit(prog, &n, rv_bne(13, 0, (int32_t)(loop - at)));
    emit_exit(prog, &n, 12);
    uint32_t fn = emit(prog, &n, rv_addi(2, 2, -8));
    emit(prog, &n, rv_sw(1, 2, 4));
    emit(prog, &n, rv_sw(10, 2, 0));
    emit(prog, &n, rv_mul(10, 10, 18));
    emit(prog, &n, rv_divu(10, 10, 19));
    emit(prog, &n, rv_lw(5, 2, 0));
    emit(prog, &n, rv_add(10, 10, 5));
    emit(prog, &n, rv_lw(1, 2, 4));
    emit(prog, &n, rv_addi(2, 2, 8));
    emit(prog, &n, rv_jalr(0, 1, 0));
    prog[(call - HCA_FW_RAM_BASE) / 4] = rv_jal(1, (int32_t)(fn - call));
    return n;
}

/* Run the program in ram with x13 = iters, in quanta of `quantum` cycles (0: free). */
static int run_one(const char *name, uint32_t iters, uint64_t quantum, uint32_t *exit_code)
{
    rv32_reset(g_cpu, HCA_FW_RAM_BASE);
    rv32_set_reg(g_cpu, 13, iters);
    uint64_t i0 = rv32_instret(g_cpu), c0 = rv32_cycles(g_cpu);
    double t0 = bench_now_s();
    rv32_stop_t s;
    if (quantum == 0)
        s = rv32_run(g_cpu, UINT64_MAX);
    else
        while ((s = rv32_run(g_cpu, quantum)) == RV32_STOP_BUDGET)
            ;
    double dt = bench_now_s() - t0;
    if (s != RV32_STOP_HALT) {
        uint32_t cause = 0, epc = 0, tval = 0;
        rv32_last_trap(g_cpu, &cause, &epc, &tval);
        fprintf(stderr, "bench-rv32 %s: stopped on %s at pc 0x%08x (%s, epc 0x%08x, tval 0x%08x)\n", name,
                rv32_stop_name(s), rv32_pc(g_cpu), rv32_cause_name(cause), epc, tval);
        return -1;
    }
    uint64_t insns = rv32_instret(g_cpu) - i0, cycles = rv32_cycles(g_cpu) - c0;
    char q[48];
    if (quantum)
        snprintf(q, sizeof q, "quantum %3llu cyc", (unsigned long long)quantum);
    else
        snprintf(q, sizeof q, "free-running    ");
    printf("bench-rv32 %-4s %s: %7.1f M insns in %5.2f s = %7.1f MIPS (CPI %.2f at default costs)\n", name, q,
           (double)insns / 1e6, dt, (double)insns / dt / 1e6, (double)cycles / (double)insns);
    *exit_code = rv32_exit_code(g_cpu);
    return 0;
}

int main(void)
{
    uint8_t *ram = calloc(1, RAM_SIZE);
    if (!ram)
        return 1;
    for (uint32_t i = 0; i < 1024; i++)
        ram[DATA - HCA_FW_RAM_BASE + i] = (uint8_t)(i * 37 + 11);
    rv32_bus_t bus = {.ctx = NULL, .load = bus_load, .store = bus_store};
    rv32_config_t cfg = {.ram = ram, .ram_base = HCA_FW_RAM_BASE, .ram_size = RAM_SIZE, .bus = &bus};
    if (rv32_create(&g_cpu, &cfg) != 0)
        return 1;

    static const uint64_t quanta[] = {0, 256, 16, 1};
    /* iterations per mode: about 100 M instructions free-running, fewer in small quanta */
    static const uint32_t alu_iters[] = {40000, 40000, 20000, 8000};
    static const uint32_t call_iters[] = {6000000, 6000000, 3000000, 1200000};
    uint32_t prog[128];
    int rc = 0;
    uint32_t code = 0;

    unsigned n = build_alu(prog);
    memcpy(ram, prog, 4u * n);
    for (unsigned m = 0; m < 4 && !rc; m++)
        rc = run_one("alu", alu_iters[m], quanta[m], &code);

    n = build_call(prog);
    memcpy(ram, prog, 4u * n);
    for (unsigned m = 0; m < 4 && !rc; m++)
        rc = run_one("call", call_iters[m], quanta[m], &code);
    rv32_destroy(g_cpu);
    free(ram);
    return rc ? 1 : 0;
}
