/* start.S — reset entry, .bss clearing and the trap entry of every firmware
 * program (see start.h for the contract). Console addresses come from the
 * linker script (__console_tx, __console_exit), which takes them from the ABI.
 */
#include "start.h"

/* ------------------------------------------------------------------ reset */

    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la      gp, __global_pointer$       /* before anything relaxes against it */
    .option pop
    la      sp, __stack_top
    la      t0, __trap_stack_top
    csrw    mscratch, t0
    la      t0, _trap_entry             /* direct mode: 4-byte aligned */
    csrw    mtvec, t0
    la      t0, __bss_start             /* the loader zero-fills .bss too; a */
    la      t1, __bss_end               /* restart must not rely on it */
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
    lui     t0, %hi(__console_exit)     /* exit code = main's return value */
    sw      a0, %lo(__console_exit)(t0)
3:  wfi                                 /* no console: sleep for ever */
    j       3b
    .size   _start, . - _start

/* ------------------------------------------------------------------ traps */

    .section .text.trap, "ax", @progbits
    .p2align 2
    .globl _trap_entry
    .type _trap_entry, @function
_trap_entry:
    csrrw   sp, mscratch, sp            /* sp = trap stack, mscratch = interrupted sp */
    beqz    sp, _double_trap            /* mscratch was 0: trapped inside the entry */
    addi    sp, sp, -FW_TF_SIZE
    .irp n, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sw      x\n, 4*\n(sp)
    .endr
    csrrw   t0, mscratch, zero          /* mscratch = 0: "inside the entry" */
    sw      t0, FW_TF_X(2)(sp)
    csrr    t0, mepc
    sw      t0, FW_TF_MEPC(sp)
    csrr    t0, mcause
    sw      t0, FW_TF_MCAUSE(sp)
    csrr    t0, mtval
    sw      t0, FW_TF_MTVAL(sp)
    lw      t1, fw_trap_hook
    beqz    t1, _trap_report
    mv      a0, sp
    jalr    t1
    beqz    a0, _trap_report
    lw      t0, FW_TF_MEPC(sp)          /* handled: resume where the hook says */
    csrw    mepc, t0
    addi    t0, sp, FW_TF_SIZE          /* re-arm the trap stack */
    csrw    mscratch, t0
    .irp n, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    lw      x\n, 4*\n(sp)
    .endr
    lw      sp, FW_TF_X(2)(sp)
    mret

/* Not handled: report from the frame, exit with FW_EXIT_TRAP(mcause). */
_trap_report:
    la      a0, .Lmsg_trap
    jal     _trap_puts
    lw      a0, FW_TF_MCAUSE(sp)
    jal     _trap_puthex
    la      a0, .Lmsg_mepc
    jal     _trap_puts
    lw      a0, FW_TF_MEPC(sp)
    jal     _trap_puthex
    la      a0, .Lmsg_mtval
    jal     _trap_puts
    lw      a0, FW_TF_MTVAL(sp)
    jal     _trap_puthex
    la      a0, .Lmsg_nl
    jal     _trap_puts
    lw      a0, FW_TF_MCAUSE(sp)
    li      t2, FW_EXIT_TRAP_BASE
    j       _trap_exit

/* A trap inside the entry or the hook: no stack, report the CSRs as they are.
 * A fault here (a broken console) ends in the wfi loop, not in a trap storm. */
_double_trap:
    la      t0, _trap_hang
    csrw    mtvec, t0
    la      a0, .Lmsg_double
    jal     _trap_puts
    csrr    a0, mcause
    jal     _trap_puthex
    la      a0, .Lmsg_mepc
    jal     _trap_puts
    csrr    a0, mepc
    jal     _trap_puthex
    la      a0, .Lmsg_mtval
    jal     _trap_puts
    csrr    a0, mtval
    jal     _trap_puthex
    la      a0, .Lmsg_nl
    jal     _trap_puts
    csrr    a0, mcause
    li      t2, FW_EXIT_DOUBLE_TRAP_BASE

/* a0 = mcause, t2 = base: exit with base | interrupt << 8 | cause[7:0]. */
_trap_exit:
    srli    t1, a0, 31
    slli    t1, t1, 8
    andi    a0, a0, 0xff
    or      a0, a0, t1
    or      a0, a0, t2
    lui     t0, %hi(__console_exit)
    sw      a0, %lo(__console_exit)(t0)
_trap_hang:
    wfi
    j       _trap_hang
    .size   _trap_entry, . - _trap_entry

/* Print the NUL-terminated string at a0. Uses t0, t1 only; no stack. */
    .type _trap_puts, @function
_trap_puts:
    lui     t0, %hi(__console_tx)
1:  lbu     t1, 0(a0)
    beqz    t1, 2f
    sw      t1, %lo(__console_tx)(t0)
    addi    a0, a0, 1
    j       1b
2:  ret
    .size   _trap_puts, . - _trap_puts

/* Print a0 as 0x%08x. Uses t0, t1, t3, t4 only; no stack. */
    .type _trap_puthex, @function
_trap_puthex:
    lui     t0, %hi(__console_tx)
    li      t1, '0'
    sw      t1, %lo(__console_tx)(t0)
    li      t1, 'x'
    sw      t1, %lo(__console_tx)(t0)
    li      t3, 28
1:  srl     t1, a0, t3
    andi    t1, t1, 15
    li      t4, 10
    blt     t1, t4, 2f
    addi    t1, t1, 'a' - '0' - 10
2:  addi    t1, t1, '0'
    sw      t1, %lo(__console_tx)(t0)
    addi    t3, t3, -4
    bgez    t3, 1b
    ret
    .size   _trap_puthex, . - _trap_puthex

    .section .rodata.trap, "a", @progbits
.Lmsg_trap:   .asciz "\n*** TRAP mcause="
.Lmsg_double: .asciz "\n*** DOUBLE TRAP mcause="
.Lmsg_mepc:   .asciz " mepc="
.Lmsg_mtval:  .asciz " mtval="
.Lmsg_nl:     .asciz "\n"

/* ------------------------------------------------------------------ data */

    .section .bss.fw_trap_hook, "aw", @nobits
    .p2align 2
    .globl fw_trap_hook
    .type fw_trap_hook, @object
fw_trap_hook:
    .space 4
    .size fw_trap_hook, 4

    .section .bss.trap_stack, "aw", @nobits
    .p2align 4
__trap_stack:
    .space FW_TRAP_STACK_SIZE
__trap_stack_top:
