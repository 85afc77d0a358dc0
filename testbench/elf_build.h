// elf_build.h — write a small RV32 ELF executable byte by byte, for the
// loader's tests: every header field is a plain struct member a test can
// corrupt before serialising, so no test depends on the cross compiler's
// layout.
#ifndef ELF_BUILD_H
#define ELF_BUILD_H

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace elfb {

// Bytes placed at a file offset (segment contents, or anything else).
struct Blob {
    uint32_t off;
    std::vector<uint8_t> bytes;
};

struct Image {
    Elf32_Ehdr eh{};
    std::vector<Elf32_Phdr> ph;
    std::vector<Blob> blobs;
    uint32_t ph_at = sizeof(Elf32_Ehdr); // where the program headers are written
    size_t min_size = 0;                  // the file is at least this long

    // Serialise: header at 0, program headers at ph_at (ph.size() of them,
    // whatever e_phoff and e_phnum say), blobs at their offsets.
    std::vector<uint8_t> bytes() const
    {
        size_t size = std::max(min_size, sizeof(eh));
        const size_t ph_bytes = ph.size() * sizeof(Elf32_Phdr);
        if (!ph.empty())
            size = std::max(size, static_cast<size_t>(ph_at) + ph_bytes);
        for (const Blob &b : blobs)
            size = std::max(size, static_cast<size_t>(b.off) + b.bytes.size());
        std::vector<uint8_t> out(size, 0);
        std::memcpy(out.data(), &eh, sizeof(eh));
        if (!ph.empty())
            std::memcpy(out.data() + ph_at, ph.data(), ph_bytes);
        for (const Blob &b : blobs)
            std::copy(b.bytes.begin(), b.bytes.end(), out.begin() + b.off);
        return out;
    }
};

inline Elf32_Ehdr rv32_ehdr(uint32_t entry)
{
    Elf32_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS32;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_RISCV;
    eh.e_version = EV_CURRENT;
    eh.e_entry = entry;
    eh.e_phoff = sizeof(Elf32_Ehdr);
    eh.e_shoff = 0;
    eh.e_flags = 0; // soft-float, no RVC
    eh.e_ehsize = sizeof(Elf32_Ehdr);
    eh.e_phentsize = sizeof(Elf32_Phdr);
    eh.e_phnum = 0;
    eh.e_shentsize = sizeof(Elf32_Shdr);
    eh.e_shnum = 0;
    eh.e_shstrndx = SHN_UNDEF;
    return eh;
}

inline Elf32_Phdr load_phdr(uint32_t off, uint32_t addr, uint32_t filesz, uint32_t memsz, uint32_t flags,
                            uint32_t align = 4)
{
    Elf32_Phdr p{};
    p.p_type = PT_LOAD;
    p.p_offset = off;
    p.p_vaddr = addr;
    p.p_paddr = addr;
    p.p_filesz = filesz;
    p.p_memsz = memsz;
    p.p_flags = flags;
    p.p_align = align;
    return p;
}

// The reference image: segment 0 = text (R+X) at base, 16 bytes 0x10..0x1f;
// segment 1 = a PT_NOTE (ignored); segment 2 = data (R+W) at base + 0x1000,
// 8 bytes 0x20..0x27 then 0x100 - 8 bytes of .bss. Entry at base + 4.
constexpr uint32_t kTextOff = 0x100, kTextSize = 16;
constexpr uint32_t kDataOff = 0x180, kDataFile = 8, kDataMem = 0x100;
constexpr uint32_t kDataDelta = 0x1000;

inline Image reference(uint32_t base)
{
    Image im;
    im.eh = rv32_ehdr(base + 4);
    std::vector<uint8_t> text(kTextSize), data(kDataFile);
    for (uint32_t i = 0; i < kTextSize; i++)
        text[i] = static_cast<uint8_t>(0x10 + i);
    for (uint32_t i = 0; i < kDataFile; i++)
        data[i] = static_cast<uint8_t>(0x20 + i);
    im.ph.push_back(load_phdr(kTextOff, base, kTextSize, kTextSize, PF_R | PF_X));
    Elf32_Phdr note{};
    note.p_type = PT_NOTE;
    note.p_offset = 0xf0;
    note.p_filesz = 4;
    note.p_align = 4;
    im.ph.push_back(note);
    im.ph.push_back(load_phdr(kDataOff, base + kDataDelta, kDataFile, kDataMem, PF_R | PF_W));
    im.eh.e_phnum = static_cast<Elf32_Half>(im.ph.size());
    im.blobs.push_back({ kTextOff, text });
    im.blobs.push_back({ kDataOff, data });
    return im;
}

// A one-segment program: the words as text (R+X) at base, entry at base,
// followed by a RW segment of bss_size zeroed bytes at base + 0x1000 (when
// non-zero).
inline Image program(uint32_t base, const std::vector<uint32_t> &words, uint32_t bss_size = 0)
{
    Image im;
    im.eh = rv32_ehdr(base);
    std::vector<uint8_t> text(words.size() * 4);
    std::memcpy(text.data(), words.data(), text.size());
    im.ph.push_back(load_phdr(kTextOff, base, uint32_t(text.size()), uint32_t(text.size()), PF_R | PF_X));
    if (bss_size)
        im.ph.push_back(load_phdr(kTextOff, base + kDataDelta, 0, bss_size, PF_R | PF_W));
    im.eh.e_phnum = static_cast<Elf32_Half>(im.ph.size());
    im.blobs.push_back({ kTextOff, text });
    return im;
}

} // namespace elfb

#endif // ELF_BUILD_H
