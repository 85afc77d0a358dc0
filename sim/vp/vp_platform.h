/* vp_platform.h — an example SystemC TLM-2.0 virtual platform around the HCA
 * (sim/systemc/hca_sc.h), loosely timed:
 *
 *   vp_cpu ──► vp_router ──► vp_memory     (host memory, 4 GiB up)
 *                  ▲    └──► hca_sc.bar0   (BAR0 at VP_BAR0_BASE)
 *   hca_sc.dma ────┘
 *   hca_sc.irq ──► vp_cpu.irq
 *
 * The CPU is an SC_THREAD that runs a body (the scenario runner and the
 * reference driver in hcasim-vp) over a hca_host_t made of TLM transactions
 * and the interrupt line: what a driver on a VP's CPU model sees. Memory is
 * allocated by the platform's "OS" (the memory's allocator), not over the bus.
 *
 * Time: the CPU's time is sc_time_stamp(); its cycle count is that over the
 * device period. The device runs up to a quantum ahead (hca_sc.h).
 */
#ifndef VP_PLATFORM_H
#define VP_PLATFORM_H

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "hca_host.h"
#include "hca_sc.h"
#include "hostmem.h"

/** Where BAR0 sits on the platform's bus, and its size (HCR, doorbell and interrupt pages). */
static const uint64_t VP_BAR0_BASE = 0xe0000000ull;
static const uint64_t VP_BAR0_SIZE = 0x10000ull;

/** Host memory: a hostmem behind one target socket. Bytes nobody mapped
 *  answer TLM_ADDRESS_ERROR_RESPONSE; byte enables are refused. */
struct vp_memory : sc_core::sc_module {
    tlm_utils::simple_target_socket<vp_memory> tgt;
    hostmem_t *mem = nullptr;

    explicit vp_memory(sc_core::sc_module_name n) : sc_module(n), tgt("tgt")
    {
        if (hostmem_create(&mem))
            SC_REPORT_ERROR(name(), "out of memory");
        tgt.register_b_transport(this, &vp_memory::b_transport);
        tgt.register_transport_dbg(this, &vp_memory::transport_dbg);
    }
    ~vp_memory() override { hostmem_destroy(mem); }

    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &)
    {
        const unsigned n = gp.get_data_length();
        if (gp.get_byte_enable_ptr())
            return gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        if (gp.get_streaming_width() < n)
            return gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        int rc = 0;
        if (gp.is_read())
            rc = hostmem_read(mem, gp.get_address(), gp.get_data_ptr(), n);
        else if (gp.is_write())
            rc = hostmem_write(mem, gp.get_address(), gp.get_data_ptr(), n);
        gp.set_response_status(rc ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload &gp)
    {
        sc_core::sc_time t = sc_core::SC_ZERO_TIME;
        b_transport(gp, t);
        return gp.is_response_ok() ? gp.get_data_length() : 0;
    }
};

/** An address decoder: BAR0's window to port 1 (offset within BAR0), every
 *  other address to port 0 (memory). Any number of initiators bind to in. */
struct vp_router : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<vp_router> in;
    tlm_utils::multi_passthrough_initiator_socket<vp_router> out; /* [0] memory, [1] BAR0 */

    explicit vp_router(sc_core::sc_module_name n) : sc_module(n), in("in"), out("out")
    {
        in.register_b_transport(this, &vp_router::b_transport);
        in.register_transport_dbg(this, &vp_router::transport_dbg);
    }
    int decode(tlm::tlm_generic_payload &gp)
    {
        const uint64_t a = gp.get_address();
        if (a - VP_BAR0_BASE < VP_BAR0_SIZE) {
            gp.set_address(a - VP_BAR0_BASE);
            return 1;
        }
        return 0;
    }
    void b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &t)
    {
        const uint64_t a = gp.get_address();
        out[decode(gp)]->b_transport(gp, t);
        gp.set_address(a); /* the initiator gets its address back (base protocol) */
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload &gp)
    {
        const uint64_t a = gp.get_address();
        const int port = decode(gp);
        const unsigned n = port ? 0 : out[port]->transport_dbg(gp); /* no debug access to registers */
        gp.set_address(a);
        return n;
    }
};

/** The CPU: body runs in an SC_THREAD (big stack: it runs the runner) and
 *  reaches the device through host(). sc_stop() when body returns. */
struct vp_cpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<vp_cpu> bus;
    sc_core::sc_in<bool> irq;
    hostmem_t *heap;                 /* the memory's allocator (the platform's OS) */
    sc_core::sc_time period;         /* one device cycle */
    std::function<void(vp_cpu &)> body;

    vp_cpu(sc_core::sc_module_name n, hostmem_t *heap_, const sc_core::sc_time &period_)
        : sc_module(n), bus("bus"), irq("irq"), heap(heap_), period(period_)
    {
        SC_HAS_PROCESS(vp_cpu);
        SC_THREAD(run);
        set_stack_size(64u << 20);
    }

    void run()
    {
        if (body)
            body(*this);
        sc_core::sc_stop();
    }

    tlm::tlm_response_status xfer(tlm::tlm_command cmd, uint64_t addr, void *p, unsigned len)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(p));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_dmi_allowed(false);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        bus->b_transport(gp, d);
        if (d != sc_core::SC_ZERO_TIME)
            wait(d);
        return gp.get_response_status();
    }

    uint64_t cycles() const { return (uint64_t)(sc_core::sc_time_stamp() / period + 0.5); }

    static vp_cpu *me(void *c) { return static_cast<vp_cpu *>(c); }
    static int h_mmio_read(void *c, uint32_t off, uint32_t *v)
    {
        const tlm::tlm_response_status s = me(c)->xfer(tlm::TLM_READ_COMMAND, VP_BAR0_BASE + off, v, 4);
        if (s != tlm::TLM_OK_RESPONSE)
            *v = 0;
        return s == tlm::TLM_OK_RESPONSE ? 0 : s == tlm::TLM_ADDRESS_ERROR_RESPONSE ? -EINVAL : -EIO;
    }
    static int h_mmio_write(void *c, uint32_t off, uint32_t v)
    {
        const tlm::tlm_response_status s = me(c)->xfer(tlm::TLM_WRITE_COMMAND, VP_BAR0_BASE + off, &v, 4);
        /* a doorbell the device refuses is a generic error: the driver retries on -ENOSPC */
        return s == tlm::TLM_OK_RESPONSE ? 0 : s == tlm::TLM_ADDRESS_ERROR_RESPONSE ? -EINVAL : -ENOSPC;
    }
    static int h_alloc(void *c, uint64_t size, uint64_t align, uint64_t *a)
    {
        return hostmem_alloc(me(c)->heap, size, align, a);
    }
    static int h_free(void *c, uint64_t a, uint64_t size) { return hostmem_unmap(me(c)->heap, a, size); }
    static int h_read(void *c, uint64_t a, void *buf, size_t len)
    {
        if (!len)
            return 0;
        return me(c)->xfer(tlm::TLM_READ_COMMAND, a, buf, (unsigned)len) == tlm::TLM_OK_RESPONSE ? 0 : -EFAULT;
    }
    static int h_write(void *c, uint64_t a, const void *buf, size_t len)
    {
        if (!len)
            return 0;
        return me(c)->xfer(tlm::TLM_WRITE_COMMAND, a, const_cast<void *>(buf), (unsigned)len) == tlm::TLM_OK_RESPONSE
                   ? 0
                   : -EFAULT;
    }
    static uint64_t h_wait(void *c, uint64_t max, int wake_on_irq)
    {
        vp_cpu *cpu = me(c);
        const uint64_t t0 = cpu->cycles();
        if (wake_on_irq && cpu->irq.read())
            return 0;
        const sc_core::sc_time span = cpu->period * (double)std::min<uint64_t>(max, 1ull << 40);
        if (wake_on_irq)
            cpu->wait(span, cpu->irq.posedge_event());
        else
            cpu->wait(span);
        return cpu->cycles() - t0;
    }
    static uint64_t h_now(void *c) { return me(c)->cycles(); }

    hca_host_t host()
    {
        static const hca_host_ops_t ops = {h_mmio_read, h_mmio_write, h_alloc, h_free,
                                           h_read,      h_write,      h_wait,  h_now};
        return {&ops, this};
    }
};

/** Memory, router, HCA and CPU, wired. */
struct vp_platform {
    vp_memory mem;
    vp_router router;
    hca_sc hca;
    vp_cpu cpu;
    sc_core::sc_signal<bool> irq;

    vp_platform(const std::string &name, const hca_dev_config_t &cfg, const sc_core::sc_time &period)
        : mem((name + "_mem").c_str()), router((name + "_router").c_str()), hca((name + "_hca").c_str(), cfg, period),
          cpu((name + "_cpu").c_str(), mem.mem, period), irq((name + "_irq").c_str())
    {
        cpu.bus.bind(router.in);
        hca.dma.bind(router.in);
        router.out.bind(mem.tgt);
        router.out.bind(hca.bar0);
        hca.irq(irq);
        cpu.irq(irq);
    }
};

/** A program's main() around sc_main: SystemC's banner off (the output is
 *  the program's own), then SystemC's usual start. */
inline int vp_main(int argc, char *argv[])
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return sc_core::sc_elab_and_sim(argc, argv);
}

#endif /* VP_PLATFORM_H */
