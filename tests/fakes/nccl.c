/*
 * A fake libnccl.so.2: ncclCommInitAll over the fake driver's GPUs, grouped ncclAllReduce of
 * floats (sum), computed at ncclGroupEnd on the CPU over "device" memory that is host memory.
 * FAKE_WRONG=allreduce changes one element of the last GPU's result.
 */
#define _GNU_SOURCE
#include "fake.h"

struct ncclComm {
    int rank, size;
};

static struct ncclComm comms[16];
static int grouped;
static struct op {
    const float *send;
    float *recv;
    size_t count;
} ops[16];
static int nops;

int ncclGetVersion(int *v)
{
    *v = 22809;
    return 0;
}

const char *ncclGetErrorString(int r)
{
    return r == 0 ? "no error" : r == 1 ? "unhandled cuda error" : "invalid usage";
}

int ncclCommInitAll(struct ncclComm **out, int ndev, const int *devs)
{
    fake_enter("ncclCommInitAll");
    int st = fake_fail("ncclCommInitAll");
    if (st)
        return st;
    if (ndev < 1 || ndev > 16)
        return 4;
    for (int i = 0; i < ndev; i++) {
        comms[i] = (struct ncclComm){ devs ? devs[i] : i, ndev };
        out[i] = &comms[i];
    }
    return 0;
}

int ncclCommDestroy(struct ncclComm *c)
{
    (void)c;
    return 0;
}

int ncclGroupStart(void)
{
    grouped++;
    nops = 0;
    return 0;
}

int ncclAllReduce(const void *send, void *recv, size_t count, int type, int op,
                  struct ncclComm *comm, void *stream)
{
    (void)stream;
    fake_enter("ncclAllReduce");
    if (type != 7 || op != 0 || !comm)
        return 4;
    /* One thread driving several GPUs must group the calls, or NCCL waits for ever. */
    if (!grouped && comm->size > 1)
        return 5;
    if (nops == 16)
        return 5;
    ops[nops++] = (struct op){ send, recv, count };
    return fake_fail("ncclAllReduce");
}

int ncclGroupEnd(void)
{
    fake_enter("ncclGroupEnd");
    if (!grouped)
        return 5;
    grouped--;
    int st = fake_fail("ncclGroupEnd");
    if (st)
        return st;
    if (nops == 0)
        return 0;
    size_t count = ops[0].count;
    float *sum = calloc(count, sizeof *sum);
    if (!sum)
        return 2;
    for (int k = 0; k < nops; k++)
        for (size_t i = 0; i < count && i < ops[k].count; i++)
            sum[i] += ops[k].send[i];
    for (int k = 0; k < nops; k++)
        memcpy(ops[k].recv, sum, count * sizeof *sum);
    if (fake_wrong("allreduce"))
        ops[nops - 1].recv[count / 2] += 1;
    free(sum);
    nops = 0;
    return 0;
}
