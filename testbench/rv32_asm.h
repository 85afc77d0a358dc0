/* rv32_asm.h — a tiny RV32IM + Zicsr instruction encoder for tests and benches.
 *
 * Format encoders (U 2.2-2.3: R, I, S, B, U, J) and one function per
 * mnemonic, operands in assembler order: rv_add(rd, rs1, rs2),
 * rv_lw(rd, rs1, off) for "lw rd, off(rs1)", rv_sw(rs2, rs1, off) for
 * "sw rs2, off(rs1)", rv_beq(rs1, rs2, off), rv_csrrw(rd, csr, rs1).
 * Branch and jump offsets are in bytes, relative to the instruction.
 * Plain C (static inline), usable from C and C++.
 */
#ifndef RV32_ASM_H
#define RV32_ASM_H

#include <stdint.h>

/* ---------------------------------------------------------------- formats */

static inline uint32_t rv_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op)
{
    return (f7 & 0x7f) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | (f3 & 7) << 12 | (rd & 31) << 7 | (op & 0x7f);
}

static inline uint32_t rv_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op)
{
    return ((uint32_t)imm & 0xfff) << 20 | (rs1 & 31) << 15 | (f3 & 7) << 12 | (rd & 31) << 7 | (op & 0x7f);
}

static inline uint32_t rv_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 5) & 0x7f) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 | (f3 & 7) << 12 | (u & 31) << 7 |
           (op & 0x7f);
}

static inline uint32_t rv_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t op)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | (rs2 & 31) << 20 | (rs1 & 31) << 15 |
           (f3 & 7) << 12 | ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | (op & 0x7f);
}

/* imm20: the value of bits 31:12 of the result ("lui rd, imm20"). */
static inline uint32_t rv_u(uint32_t imm20, uint32_t rd, uint32_t op)
{
    return (imm20 & 0xfffff) << 12 | (rd & 31) << 7 | (op & 0x7f);
}

static inline uint32_t rv_j(int32_t imm, uint32_t rd, uint32_t op)
{
    uint32_t u = (uint32_t)imm;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12 |
           (rd & 31) << 7 | (op & 0x7f);
}

/* ---------------------------------------------------------------- opcodes */

#define RV_OP_LUI 0x37u
#define RV_OP_AUIPC 0x17u
#define RV_OP_JAL 0x6fu
#define RV_OP_JALR 0x67u
#define RV_OP_BRANCH 0x63u
#define RV_OP_LOAD 0x03u
#define RV_OP_STORE 0x23u
#define RV_OP_IMM 0x13u
#define RV_OP_OP 0x33u
#define RV_OP_MISC_MEM 0x0fu
#define RV_OP_SYSTEM 0x73u

/* ---------------------------------------------------------------- RV32I */

static inline uint32_t rv_lui(uint32_t rd, uint32_t imm20) { return rv_u(imm20, rd, RV_OP_LUI); }
static inline uint32_t rv_auipc(uint32_t rd, uint32_t imm20) { return rv_u(imm20, rd, RV_OP_AUIPC); }
static inline uint32_t rv_jal(uint32_t rd, int32_t off) { return rv_j(off, rd, RV_OP_JAL); }
static inline uint32_t rv_jalr(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 0, rd, RV_OP_JALR); }

static inline uint32_t rv_beq(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 0, RV_OP_BRANCH); }
static inline uint32_t rv_bne(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 1, RV_OP_BRANCH); }
static inline uint32_t rv_blt(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 4, RV_OP_BRANCH); }
static inline uint32_t rv_bge(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 5, RV_OP_BRANCH); }
static inline uint32_t rv_bltu(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 6, RV_OP_BRANCH); }
static inline uint32_t rv_bgeu(uint32_t rs1, uint32_t rs2, int32_t off) { return rv_b(off, rs2, rs1, 7, RV_OP_BRANCH); }

static inline uint32_t rv_lb(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 0, rd, RV_OP_LOAD); }
static inline uint32_t rv_lh(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 1, rd, RV_OP_LOAD); }
static inline uint32_t rv_lw(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 2, rd, RV_OP_LOAD); }
static inline uint32_t rv_lbu(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 4, rd, RV_OP_LOAD); }
static inline uint32_t rv_lhu(uint32_t rd, uint32_t rs1, int32_t off) { return rv_i(off, rs1, 5, rd, RV_OP_LOAD); }
static inline uint32_t rv_sb(uint32_t rs2, uint32_t rs1, int32_t off) { return rv_s(off, rs2, rs1, 0, RV_OP_STORE); }
static inline uint32_t rv_sh(uint32_t rs2, uint32_t rs1, int32_t off) { return rv_s(off, rs2, rs1, 1, RV_OP_STORE); }
static inline uint32_t rv_sw(uint32_t rs2, uint32_t rs1, int32_t off) { return rv_s(off, rs2, rs1, 2, RV_OP_STORE); }

static inline uint32_t rv_addi(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 0, rd, RV_OP_IMM); }
static inline uint32_t rv_slti(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 2, rd, RV_OP_IMM); }
static inline uint32_t rv_sltiu(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 3, rd, RV_OP_IMM); }
static inline uint32_t rv_xori(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 4, rd, RV_OP_IMM); }
static inline uint32_t rv_ori(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 6, rd, RV_OP_IMM); }
static inline uint32_t rv_andi(uint32_t rd, uint32_t rs1, int32_t imm) { return rv_i(imm, rs1, 7, rd, RV_OP_IMM); }
static inline uint32_t rv_slli(uint32_t rd, uint32_t rs1, uint32_t sh) { return rv_r(0x00, sh, rs1, 1, rd, RV_OP_IMM); }
static inline uint32_t rv_srli(uint32_t rd, uint32_t rs1, uint32_t sh) { return rv_r(0x00, sh, rs1, 5, rd, RV_OP_IMM); }
static inline uint32_t rv_srai(uint32_t rd, uint32_t rs1, uint32_t sh) { return rv_r(0x20, sh, rs1, 5, rd, RV_OP_IMM); }

static inline uint32_t rv_add(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 0, rd, RV_OP_OP); }
static inline uint32_t rv_sub(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x20, rs2, rs1, 0, rd, RV_OP_OP); }
static inline uint32_t rv_sll(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 1, rd, RV_OP_OP); }
static inline uint32_t rv_slt(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 2, rd, RV_OP_OP); }
static inline uint32_t rv_sltu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 3, rd, RV_OP_OP); }
static inline uint32_t rv_xor(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 4, rd, RV_OP_OP); }
static inline uint32_t rv_srl(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 5, rd, RV_OP_OP); }
static inline uint32_t rv_sra(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x20, rs2, rs1, 5, rd, RV_OP_OP); }
static inline uint32_t rv_or(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 6, rd, RV_OP_OP); }
static inline uint32_t rv_and(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(0x00, rs2, rs1, 7, rd, RV_OP_OP); }

static inline uint32_t rv_fence(void) { return 0x0ff0000fu; /* fence iorw, iorw */ }
static inline uint32_t rv_fence_i(void) { return 0x0000100fu; }
static inline uint32_t rv_ecall(void) { return 0x00000073u; }
static inline uint32_t rv_ebreak(void) { return 0x00100073u; }
static inline uint32_t rv_nop(void) { return rv_addi(0, 0, 0); }

/* ---------------------------------------------------------------- RV32M */

static inline uint32_t rv_mul(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 0, rd, RV_OP_OP); }
static inline uint32_t rv_mulh(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 1, rd, RV_OP_OP); }
static inline uint32_t rv_mulhsu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 2, rd, RV_OP_OP); }
static inline uint32_t rv_mulhu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 3, rd, RV_OP_OP); }
static inline uint32_t rv_div(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 4, rd, RV_OP_OP); }
static inline uint32_t rv_divu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 5, rd, RV_OP_OP); }
static inline uint32_t rv_rem(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 6, rd, RV_OP_OP); }
static inline uint32_t rv_remu(uint32_t rd, uint32_t rs1, uint32_t rs2) { return rv_r(1, rs2, rs1, 7, rd, RV_OP_OP); }

/* ---------------------------------------------------------------- privileged, Zicsr */

static inline uint32_t rv_mret(void) { return 0x30200073u; }
static inline uint32_t rv_wfi(void) { return 0x10500073u; }
static inline uint32_t rv_csrrw(uint32_t rd, uint32_t csr, uint32_t rs1) { return rv_i((int32_t)csr, rs1, 1, rd, RV_OP_SYSTEM); }
static inline uint32_t rv_csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return rv_i((int32_t)csr, rs1, 2, rd, RV_OP_SYSTEM); }
static inline uint32_t rv_csrrc(uint32_t rd, uint32_t csr, uint32_t rs1) { return rv_i((int32_t)csr, rs1, 3, rd, RV_OP_SYSTEM); }
static inline uint32_t rv_csrrwi(uint32_t rd, uint32_t csr, uint32_t uimm) { return rv_i((int32_t)csr, uimm, 5, rd, RV_OP_SYSTEM); }
static inline uint32_t rv_csrrsi(uint32_t rd, uint32_t csr, uint32_t uimm) { return rv_i((int32_t)csr, uimm, 6, rd, RV_OP_SYSTEM); }
static inline uint32_t rv_csrrci(uint32_t rd, uint32_t csr, uint32_t uimm) { return rv_i((int32_t)csr, uimm, 7, rd, RV_OP_SYSTEM); }
/* csrr rd, csr = csrrs rd, csr, x0; csrw csr, rs1 = csrrw x0, csr, rs1 */
static inline uint32_t rv_csrr(uint32_t rd, uint32_t csr) { return rv_csrrs(rd, csr, 0); }
static inline uint32_t rv_csrw(uint32_t csr, uint32_t rs1) { return rv_csrrw(0, csr, rs1); }

/* ---------------------------------------------------------------- pseudo */

/* li rd, val as lui + addi (always two words, so programs have a fixed layout). */
static inline void rv_li(uint32_t out[2], uint32_t rd, uint32_t val)
{
    uint32_t hi = (val + 0x800u) >> 12; /* addi sign-extends its 12 bits */
    int32_t lo = (int32_t)(val << 20) >> 20;
    out[0] = rv_lui(rd, hi);
    out[1] = rv_addi(rd, rd, lo);
}

#endif /* RV32_ASM_H */
