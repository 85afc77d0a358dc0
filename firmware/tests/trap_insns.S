/* trap_insns.S — instructions that trap, each at a global label so the C
 * tests know the exact mepc to expect. Each helper is a function; when its
 * trap is handled by skipping the instruction (mepc + 4) it returns normally.
 * Linked into every test program (gc-sections drops the unused ones). */

    .macro  helper name
    .section .text.\name, "ax", @progbits
    .p2align 2
    .globl  \name
    .type   \name, @function
\name:
    .endm

/* uint32_t trap_illegal_zero(void): the all-zero word, illegal by definition. */
    helper  trap_illegal_zero
    li      a0, 0x5a5a
    .globl  trap_illegal_zero_pc
trap_illegal_zero_pc:
    .word   0x00000000
    ret

/* uint32_t trap_illegal_csr(void): csrr a0, 0x7c0 — an unimplemented CSR. */
    helper  trap_illegal_csr
    li      a0, 0x1234
    .globl  trap_illegal_csr_pc
trap_illegal_csr_pc:
    csrr    a0, 0x7c0
    ret

/* uint32_t trap_load_misaligned(uintptr_t p): lw a0, 1(a0). */
    helper  trap_load_misaligned
    .globl  trap_load_misaligned_pc
trap_load_misaligned_pc:
    lw      a0, 1(a0)
    ret

/* uint32_t trap_loadh_misaligned(uintptr_t p): lh a0, 3(a0). */
    helper  trap_loadh_misaligned
    .globl  trap_loadh_misaligned_pc
trap_loadh_misaligned_pc:
    lh      a0, 3(a0)
    ret

/* void trap_store_misaligned(uintptr_t p, uint32_t v): sw a1, 2(a0). */
    helper  trap_store_misaligned
    .globl  trap_store_misaligned_pc
trap_store_misaligned_pc:
    sw      a1, 2(a0)
    ret

/* uint32_t trap_load_fault(uintptr_t p): lw a0, 0(a0) on an unmapped address. */
    helper  trap_load_fault
    .globl  trap_load_fault_pc
trap_load_fault_pc:
    lw      a0, 0(a0)
    ret

/* void trap_store_fault(uintptr_t p): sw zero, 0(a0) on an unmapped address. */
    helper  trap_store_fault
    .globl  trap_store_fault_pc
trap_store_fault_pc:
    sw      zero, 0(a0)
    ret

/* uint32_t trap_ecall(uint32_t a0, uint32_t a7): a system call; the handler's
 * a0 is returned. */
    helper  trap_ecall
    mv      a7, a1
    .globl  trap_ecall_pc
trap_ecall_pc:
    ecall
    ret

/* void trap_ebreak(void) */
    helper  trap_ebreak
    .globl  trap_ebreak_pc
trap_ebreak_pc:
    ebreak
    ret

/* void trap_fetch_misaligned(void): jump to 2 bytes into an instruction. The
 * jump traps (mepc = the jump, mtval = the target); skipping it returns. */
    helper  trap_fetch_misaligned
    la      t0, trap_fetch_misaligned_target + 2
    .globl  trap_fetch_misaligned_pc
trap_fetch_misaligned_pc:
    jr      t0
    .globl  trap_fetch_misaligned_target
trap_fetch_misaligned_target:
    ret

/* uint32_t trap_keeps_registers(void): fill every register but sp/gp/tp/ra
 * with a pattern, ecall (a7 = 0: the handler changes nothing), and return the
 * number of registers that changed. */
    helper  trap_keeps_registers
    addi    sp, sp, -64
    sw      ra, 0(sp)
    sw      s0, 4(sp)
    sw      s1, 8(sp)
    sw      s2, 12(sp)
    sw      s3, 16(sp)
    sw      s4, 20(sp)
    sw      s5, 24(sp)
    sw      s6, 28(sp)
    sw      s7, 32(sp)
    sw      s8, 36(sp)
    sw      s9, 40(sp)
    sw      s10, 44(sp)
    sw      s11, 48(sp)
    sw      tp, 52(sp)
    .irp    n, 5,6,7,8,9,10,11,12,13,14,15,16,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    li      x\n, 0x11110000 + \n * 0x01010101
    .endr
    li      x17, 0          /* a7 = 0: "do nothing" */
    li      x4, 0x44440000
    .globl  trap_keeps_registers_pc
trap_keeps_registers_pc:
    ecall
    /* count mismatches in ra (x1, free now: saved on the stack); a0 first,
     * as it is the scratch register afterwards */
    li      x1, 0x11110000 + 10 * 0x01010101
    sub     x1, x10, x1
    snez    x1, x1
    .irp    n, 5,6,7,8,9,11,12,13,14,15,16,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    li      x10, 0x11110000 + \n * 0x01010101
    beq     x\n, x10, 1f
    addi    x1, x1, 1
1:
    .endr
    beqz    x17, 2f
    addi    x1, x1, 1
2:  li      x10, 0x44440000
    beq     x4, x10, 4f
    addi    x1, x1, 1
4:  mv      a0, x1
    lw      ra, 0(sp)
    lw      s0, 4(sp)
    lw      s1, 8(sp)
    lw      s2, 12(sp)
    lw      s3, 16(sp)
    lw      s4, 20(sp)
    lw      s5, 24(sp)
    lw      s6, 28(sp)
    lw      s7, 32(sp)
    lw      s8, 36(sp)
    lw      s9, 40(sp)
    lw      s10, 44(sp)
    lw      s11, 48(sp)
    lw      tp, 52(sp)
    addi    sp, sp, 64
    ret
