/* trap_insns.h — the trapping helpers of trap_insns.S and their labels. */
#ifndef FW_TEST_TRAP_INSNS_H
#define FW_TEST_TRAP_INSNS_H

#include <stdint.h>

uint32_t trap_illegal_zero(void);
uint32_t trap_illegal_csr(void);
uint32_t trap_load_misaligned(uintptr_t p);
uint32_t trap_loadh_misaligned(uintptr_t p);
void trap_store_misaligned(uintptr_t p, uint32_t v);
uint32_t trap_load_fault(uintptr_t p);
void trap_store_fault(uintptr_t p);
uint32_t trap_ecall(uint32_t a0, uint32_t a7);
void trap_ebreak(void);
void trap_fetch_misaligned(void);
uint32_t trap_keeps_registers(void);

/* The trapping instruction of each helper. */
extern const uint32_t trap_illegal_zero_pc[], trap_illegal_csr_pc[], trap_load_misaligned_pc[],
    trap_loadh_misaligned_pc[], trap_store_misaligned_pc[], trap_load_fault_pc[], trap_store_fault_pc[],
    trap_ecall_pc[], trap_ebreak_pc[], trap_fetch_misaligned_pc[], trap_fetch_misaligned_target[],
    trap_keeps_registers_pc[];

#define PC_OF(label) ((uint32_t)(uintptr_t)(label))

#endif /* FW_TEST_TRAP_INSNS_H */
