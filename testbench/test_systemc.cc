// The HCA's SystemC module (sim/systemc/hca_sc.h) on a tiny loosely-timed
// platform: a TLM memory, the HCA, and a CPU thread running the reference
// driver over TLM (its host boundary as transactions and the interrupt).
// SystemC elaborates and runs once per process, so one platform per engine is
// built side by side and both run in a single sc_start, the first time a test
// asks (sim()); each test then checks what its platform's CPU recorded.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "hca_sc.h"
#include "hcadrv.h"
#include "hostmem.h"

using namespace sc_core;
using tlm::tlm_generic_payload;
using tlm::tlm_response_status;

namespace {

const sc_time PERIOD(4, SC_NS);
const sc_time QUANTUM(1, SC_US);
const uint64_t SETTLE = 2 * (QUANTUM / PERIOD); // cycles: the device may be a quantum ahead
const uint32_t RW = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_WRITE;

// The platform's memory: a hostmem behind one target socket per initiator.
struct TlmMem : sc_module {
    tlm_utils::simple_target_socket<TlmMem> cpu, dev;
    hostmem_t *mem = nullptr;
    uint64_t dev_reads = 0, dev_writes = 0;

    explicit TlmMem(sc_module_name n) : sc_module(n), cpu("cpu"), dev("dev")
    {
        hostmem_create(&mem);
        cpu.register_b_transport(this, &TlmMem::access);
        dev.register_b_transport(this, &TlmMem::dev_access);
    }
    ~TlmMem() override { hostmem_destroy(mem); }

    void access(tlm_generic_payload &gp, sc_time &)
    {
        const uint64_t a = gp.get_address();
        const unsigned n = gp.get_data_length();
        int rc = 0;
        if (gp.get_byte_enable_ptr())
            return gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        if (gp.get_streaming_width() < n)
            return gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        if (gp.is_read())
            rc = hostmem_read(mem, a, gp.get_data_ptr(), n);
        else if (gp.is_write())
            rc = hostmem_write(mem, a, gp.get_data_ptr(), n);
        gp.set_response_status(rc ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
    }
    void dev_access(tlm_generic_payload &gp, sc_time &t)
    {
        (gp.is_read() ? dev_reads : dev_writes)++;
        access(gp, t);
    }
};

// What one platform's CPU saw.
struct Record {
    tlm_response_status bad_len{}, bad_be{}, bad_addr{}, unaligned{}, bad_write{};
    bool dmi_hint = true, dmi_granted = true;
    int open = 1, query = 1, pd = 1, mr = 1, create_qp = 1;
    hcadrv_device_attr_t attr{};
    bool irq_low_after_clear = false, irq_high_after_cmd = false;
    // RDMA WRITE (RTL): post, wake on the interrupt, poll, payload.
    int connect = 1, post = 1, polled = 0;
    uint64_t woke_after = 0;
    hcadrv_wc_t wc{};
    bool payload_equal = false;
    // Time: the device's cycle times against the CPU's clock at the end.
    sc_time end;
    uint64_t dev_cycles = 0;
    bool done = false;
};

// A CPU: the driver's host boundary (hca_host.h) as TLM transactions.
struct TlmCpu : sc_module {
    tlm_utils::simple_initiator_socket<TlmCpu> mmio, mem;
    sc_in<bool> irq;
    hostmem_t *heap;           // the platform's allocator (its OS), not the bus
    const hca_sc *hca;         // only to read its cycle counter at the end
    Record rec;
    unsigned rises = 0, falls = 0;
    static unsigned running;

    TlmCpu(sc_module_name n, hostmem_t *heap_, const hca_sc *hca_)
        : sc_module(n), mmio("mmio"), mem("mem"), irq("irq"), heap(heap_), hca(hca_)
    {
        SC_HAS_PROCESS(TlmCpu);
        SC_THREAD(run);
        SC_METHOD(edge);
        sensitive << irq;
        dont_initialize();
        running++;
    }

    void edge() { (irq.read() ? rises : falls)++; }

    tlm_response_status xfer(tlm::tlm_command cmd, uint64_t addr, void *p, unsigned len,
                             unsigned char *be = nullptr, unsigned be_len = 0)
    {
        tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(p));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_byte_enable_ptr(be);
        gp.set_byte_enable_length(be_len);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = SC_ZERO_TIME;
        const bool bar0 = addr < (1ull << 32);
        (bar0 ? mmio : mem)->b_transport(gp, d);
        if (bar0)
            rec.dmi_hint = rec.dmi_hint && gp.is_dmi_allowed();
        wait(d);
        return gp.get_response_status();
    }
    // BAR0 and memory share one address space here: BAR0 below 4 GiB, memory
    // (hostmem_alloc's addresses) above.
    int status(tlm_response_status s)
    {
        return s == tlm::TLM_OK_RESPONSE ? 0 : s == tlm::TLM_ADDRESS_ERROR_RESPONSE ? -EINVAL : -EIO;
    }

    static TlmCpu *me(void *c) { return static_cast<TlmCpu *>(c); }
    static int h_mmio_read(void *c, uint32_t off, uint32_t *v)
    {
        return me(c)->status(me(c)->xfer(tlm::TLM_READ_COMMAND, off, v, 4));
    }
    static int h_mmio_write(void *c, uint32_t off, uint32_t v)
    {
        return me(c)->status(me(c)->xfer(tlm::TLM_WRITE_COMMAND, off, &v, 4));
    }
    static int h_alloc(void *c, uint64_t size, uint64_t align, uint64_t *a) { return hostmem_alloc(me(c)->heap, size, align, a); }
    static int h_free(void *c, uint64_t a, uint64_t size) { return hostmem_unmap(me(c)->heap, a, size); }
    static int h_read(void *c, uint64_t a, void *buf, size_t len)
    {
        return me(c)->xfer(tlm::TLM_READ_COMMAND, a, buf, (unsigned)len) == tlm::TLM_OK_RESPONSE ? 0 : -EFAULT;
    }
    static int h_write(void *c, uint64_t a, const void *buf, size_t len)
    {
        return me(c)->xfer(tlm::TLM_WRITE_COMMAND, a, const_cast<void *>(buf), (unsigned)len) == tlm::TLM_OK_RESPONSE
                   ? 0
                   : -EFAULT;
    }
    static uint64_t h_wait(void *c, uint64_t max, int wake_on_irq)
    {
        const sc_time t0 = sc_time_stamp();
        const sc_time span = PERIOD * (double)std::min<uint64_t>(max, 1ull << 40);
        if (wake_on_irq && me(c)->irq.read())
            return 0;
        if (wake_on_irq)
            sc_core::wait(span, me(c)->irq.posedge_event());
        else
            sc_core::wait(span);
        return (uint64_t)((sc_time_stamp() - t0) / PERIOD + 0.5);
    }
    static uint64_t h_now(void *) { return (uint64_t)(sc_time_stamp() / PERIOD + 0.5); }
    hca_host_t host()
    {
        static const hca_host_ops_t ops = {h_mmio_read, h_mmio_write, h_alloc, h_free, h_read, h_write, h_wait, h_now};
        return {&ops, this};
    }

    void bar0_refusals();
    void drive(hcadrv_t *drv);
    void rdma_write(hcadrv_t *drv, uint32_t pd, const hcadrv_mr_t &mr, uint64_t buf);
    void run()
    {
        bar0_refusals();
        const hca_host_t h = host();
        hcadrv_t *drv = nullptr;
        rec.open = hcadrv_open(&drv, &h);
        if (!rec.open)
            drive(drv);
        if (drv)
            hcadrv_close(drv);
        rec.end = sc_time_stamp();
        rec.dev_cycles = hca_dev_cycle(hca->dev());
        rec.done = true;
        if (--running == 0)
            sc_stop();
    }
};
unsigned TlmCpu::running = 0;

void TlmCpu::bar0_refusals()
{
    uint32_t v[2] = {0, 0};
    unsigned char be[4] = {0xff, 0xff, 0xff, 0xff};
    const uint32_t cause = HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE;
    rec.bad_len = xfer(tlm::TLM_READ_COMMAND, cause, v, 8);
    rec.bad_be = xfer(tlm::TLM_READ_COMMAND, cause, v, 4, be, 4);
    rec.bad_addr = xfer(tlm::TLM_READ_COMMAND, 0x100000, v, 4);
    rec.bad_write = xfer(tlm::TLM_WRITE_COMMAND, 0x100000, v, 4);
    rec.unaligned = xfer(tlm::TLM_READ_COMMAND, cause + 1, v, 4);
    tlm_generic_payload gp;
    tlm::tlm_dmi dmi;
    gp.set_address(cause);
    rec.dmi_granted = mmio->get_direct_mem_ptr(gp, dmi);
}

void TlmCpu::drive(hcadrv_t *drv)
{
    const hca_host_t h = host();
    const uint32_t cause = HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE;
    rec.query = hcadrv_query_device(drv, &rec.attr);
    uint32_t pd = 0;
    rec.pd = hcadrv_alloc_pd(drv, &pd);
    uint64_t buf = 0;
    hcadrv_mr_t mr{};
    if (!h.ops->mem_alloc(h.ctx, 65536, 4096, &buf))
        rec.mr = hcadrv_reg_mr(drv, pd, buf, 65536, buf, RW, 12, &mr);
    // The line follows CAUSE: cleared by the host, raised by a command's end.
    h_mmio_write(this, cause, ~0u);
    h_wait(this, SETTLE, 0);
    rec.irq_low_after_clear = !irq.read();
    hcadrv_device_attr_t again;
    hcadrv_query_device(drv, &again);
    h_wait(this, SETTLE, 0);
    rec.irq_high_after_cmd = irq.read();
    if (!rec.mr)
        rdma_write(drv, pd, mr, buf);
}

// A loopback QP pair; WRITE 4 KiB from the buffer's first half to its second,
// sleeping on the interrupt until the CQE. The model engine serves no queues.
void TlmCpu::rdma_write(hcadrv_t *drv, uint32_t pd, const hcadrv_mr_t &mr, uint64_t buf)
{
    hcadrv_cq_t cq;
    hcadrv_qp_t a, b;
    rec.create_qp = hcadrv_create_cq(drv, 64, &cq);
    hcadrv_qp_attr_t at = {pd, &cq, &cq, 64, 64, 7, 500, 0};
    if (!rec.create_qp)
        rec.create_qp = hcadrv_create_qp(drv, &at, &a);
    if (rec.create_qp || (rec.create_qp = hcadrv_create_qp(drv, &at, &b)) ||
        (rec.connect = hcadrv_connect(drv, &a, &b)))
        return;
    std::vector<uint8_t> src(4096), dst(4096);
    for (size_t i = 0; i < src.size(); i++)
        src[i] = (uint8_t)(i * 7 + 3);
    h_write(this, buf, src.data(), src.size());
    h_mmio_write(this, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u); // the commands' cmd_done
    h_wait(this, SETTLE, 0);
    hcadrv_send_wr_t wr{};
    wr.wr_id = 42;
    wr.opcode = HCA_WR_OPCODE_RDMA_WRITE;
    wr.flags = HCA_SEND_FLAGS_SIGNALED;
    wr.num_sge = 1;
    wr.sge[0] = {buf, 4096, mr.lkey};
    wr.remote_addr = buf + 32768;
    wr.rkey = mr.rkey;
    if ((rec.post = hcadrv_post_send(drv, &a, &wr)))
        return;
    rec.woke_after = h_wait(this, 2000000, 1);
    for (int i = 0; i < 100 && rec.polled == 0; i++, h_wait(this, 32, 0))
        rec.polled = hcadrv_poll_cq(drv, &cq, &rec.wc, 1);
    h_read(this, buf + 32768, dst.data(), dst.size());
    rec.payload_equal = src == dst;
    h_mmio_write(this, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_CAUSE, ~0u);
    h_wait(this, SETTLE, 0);
}

// Memory, HCA and CPU, wired: CPU -> BAR0 and memory; HCA DMA -> memory.
struct Platform {
    TlmMem mem;
    hca_sc hca;
    TlmCpu cpu;
    sc_signal<bool> irq;
    Platform(const char *name, dev_engine_kind_t engine)
        : mem((std::string(name) + "_mem").c_str()), hca((std::string(name) + "_hca").c_str(), engine, PERIOD),
          cpu((std::string(name) + "_cpu").c_str(), mem.mem, &hca), irq((std::string(name) + "_irq").c_str())
    {
        cpu.mmio.bind(hca.bar0);
        cpu.mem.bind(mem.cpu);
        hca.dma.bind(mem.dev);
        hca.irq(irq);
        cpu.irq(irq);
    }
};

std::unique_ptr<Platform> rtl, model;

void sim()
{
    if (rtl)
        return;
    tlm_utils::tlm_quantumkeeper::set_global_quantum(QUANTUM);
    rtl.reset(new Platform("rtl", DEV_ENGINE_RTL));
    model.reset(new Platform("model", DEV_ENGINE_MODEL));
    sc_start();
}

class SystemC : public ::testing::TestWithParam<dev_engine_kind_t> {
protected:
    Platform &p()
    {
        sim();
        return GetParam() == DEV_ENGINE_RTL ? *rtl : *model;
    }
};

TEST_P(SystemC, Bar0FollowsTheBaseProtocolsResponses)
{
    const Record &r = p().cpu.rec;
    EXPECT_EQ(tlm::TLM_BURST_ERROR_RESPONSE, r.bad_len) << "8-byte read";
    EXPECT_EQ(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, r.bad_be);
    EXPECT_EQ(tlm::TLM_ADDRESS_ERROR_RESPONSE, r.bad_addr) << "read of no register";
    EXPECT_EQ(tlm::TLM_ADDRESS_ERROR_RESPONSE, r.bad_write) << "write to no register";
    EXPECT_EQ(tlm::TLM_ADDRESS_ERROR_RESPONSE, r.unaligned);
    EXPECT_FALSE(r.dmi_hint) << "no DMI hint on BAR0";
    EXPECT_FALSE(r.dmi_granted) << "get_direct_mem_ptr refuses";
}

TEST_P(SystemC, TheDriverBootsQueriesAndRegistersOverTlm)
{
    Platform &pl = p();
    const Record &r = pl.cpu.rec;
    ASSERT_TRUE(r.done);
    EXPECT_EQ(0, r.open);
    EXPECT_EQ(0, r.query);
    EXPECT_NE(0u, r.attr.fw_version);
    EXPECT_GT(r.attr.max_mr, 0u);
    EXPECT_EQ(0, r.pd);
    EXPECT_EQ(0, r.mr);
    EXPECT_GT(pl.mem.dev_reads, 0u) << "the device's DMA went out of its initiator socket";
    EXPECT_GT(pl.mem.dev_writes, 0u);
    EXPECT_EQ(0, hca_dev_fw_health(pl.hca.dev(), nullptr, 0)) << hca_dev_console(pl.hca.dev());
    EXPECT_EQ(0u, hca_dev_violations(pl.hca.dev(), nullptr, 0));
}

TEST_P(SystemC, TheInterruptFollowsCauseAndMask)
{
    Platform &pl = p();
    EXPECT_TRUE(pl.cpu.rec.irq_low_after_clear);
    EXPECT_TRUE(pl.cpu.rec.irq_high_after_cmd);
    EXPECT_GE(pl.cpu.rises, 2u) << "first command's end, the query's end";
    EXPECT_GE(pl.cpu.falls, 1u);
}

TEST_P(SystemC, DeviceCyclesAreAtMostAQuantumAheadOfTheCpu)
{
    const Record &r = p().cpu.rec;
    const sc_time dev = PERIOD * (double)r.dev_cycles;
    RecordProperty("device_cycles", std::to_string(r.dev_cycles));
    RecordProperty("cpu_end_ns", std::to_string(r.end.to_seconds() * 1e9));
    EXPECT_GE(dev, r.end);
    EXPECT_LE(dev, r.end + QUANTUM + PERIOD);
}

TEST_P(SystemC, RdmaWriteOnALoopbackPairLandsInTlmMemory)
{
    const Record &r = p().cpu.rec;
    ASSERT_EQ(0, r.create_qp);
    ASSERT_EQ(0, r.connect);
    ASSERT_EQ(0, r.post);
    RecordProperty("woke_after_cycles", std::to_string(r.woke_after));
    RecordProperty("irq_rises", std::to_string(p().cpu.rises));
    RecordProperty("dma_reads", std::to_string(p().mem.dev_reads));
    EXPECT_GT(r.woke_after, 0u);
    EXPECT_LT(r.woke_after, 2000000u) << "woken by the interrupt, not the timeout";
    ASSERT_EQ(1, r.polled);
    EXPECT_EQ(42u, r.wc.wr_id);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, r.wc.status);
    EXPECT_EQ((unsigned)HCA_WC_OPCODE_RDMA_WRITE, r.wc.opcode);
    EXPECT_EQ(4096u, r.wc.byte_len);
    EXPECT_TRUE(r.payload_equal) << "the written bytes, read back from the TLM memory";
    EXPECT_GE(p().cpu.rises, 3u) << "and the CQE's interrupt";
}

INSTANTIATE_TEST_SUITE_P(Engines, SystemC, ::testing::Values(DEV_ENGINE_RTL, DEV_ENGINE_MODEL),
                         [](const ::testing::TestParamInfo<dev_engine_kind_t> &i) {
                             return std::string(dev_engine_name(i.param));
                         });

} // namespace

// libsystemc's main() calls this; the platforms go before SystemC's teardown.
int sc_main(int argc, char *argv[])
{
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    rtl.reset();
    model.reset();
    return rc;
}
