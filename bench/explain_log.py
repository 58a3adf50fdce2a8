#!/usr/bin/env python3
"""Writes a synthetic log of failed and healthy GPU training runs for bench/explain_grep.sh.

Usage: bench/explain_log.py OUT SIZE_MIB [SIGNATURES_JSON]

The noise is what TensorFlow, Keras, PyTorch (with NCCL_DEBUG=INFO and Lightning), JAX, tqdm,
nvidia-smi and the kernel print in runs that work: info and warning lines, progress bars redrawn
with a bare carriage return, Python warnings, tracebacks of unrelated errors. Every 20,000
lines or so one real failure line is mixed in: the example lines of data/kb/explain_signatures.json
(SIGNATURES_JSON), so both scanners also do the work of matching. Numbers (timestamps, losses,
addresses, ranks) vary from line to line, as in a real log. Deterministic (seeded). The file is
big (1 GiB for the benchmark): write it to /tmp, never into the repository.
"""
import json
import random
import sys

TEMPLATES = [
    "{ts}: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.",
    "{ts}: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.",
    "To enable the following instructions: AVX2 AVX512F FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.",
    "{ts}: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcudnn.so.8",
    "{ts}: I tensorflow/stream_executor/platform/default/dso_loader.cc:53] Successfully opened dynamic library libcublas.so.11",
    "{ts}: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/device:GPU:{gpu} with {mb} MB memory:  -> device: {gpu}, name: NVIDIA A100-SXM4-40GB, pci bus id: 0000:{bus:02x}:00.0, compute capability: 8.0",
    "{ts}: I external/local_xla/xla/service/service.cc:168] XLA service 0x{addr:x} initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:",
    "{ts}: I external/local_xla/xla/service/service.cc:176]   StreamExecutor device ({gpu}): NVIDIA A100-SXM4-40GB, Compute Capability 8.0",
    "{ts}: I external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:454] Loaded cuDNN version 8906",
    "I0000 00:00:{epoch}.{us:06d}  {pid} device_compiler.h:186] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.",
    "{ts}: W tensorflow/core/common_runtime/bfc_allocator.cc:296] Allocator (GPU_0_bfc) ran out of memory trying to allocate {gib:.2f}GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.",
    "{ts}: I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled.",
    "Epoch {ep}/100",
    "{step}/1875 [==============================] - {sec}s {ms}ms/step - loss: {loss:.4f} - accuracy: {acc:.4f} - val_loss: {loss2:.4f} - val_accuracy: {acc2:.4f}",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO Bootstrap : Using eth0:10.0.{a}.{b}<0>",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO cudaDriverVersion 12020",
    "NCCL version 2.18.5+cuda12.1",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO Channel {ch:02d}/02 :    0   1   2   3   4   5   6   7",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO Connected all rings",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO comm 0x{addr:x} rank {gpu} nranks 8 cudaDev {gpu} busId {bus:x}000 commId 0x{addr2:x} - Init COMPLETE",
    "{host}:{pid}:{tid} [{gpu}] NCCL INFO threadThresholds 8/8/64 | 64/8/64 | 512 | 512",
    "W{mmdd} {hms}.{us:06d} {pid} torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.",
    "GPU available: True (cuda), used: True",
    "TPU available: False, using: 0 TPU cores",
    "LOCAL_RANK: {gpu} - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]",
    "Using 16bit Automatic Mixed Precision (AMP)",
    "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py:560: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 8, which is smaller than what this DataLoader is going to create.",
    "/opt/conda/lib/python3.10/site-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.",
    "Epoch {ep}:  {pct}%|#####     | {it}/1000 [{mm:02d}:{ss:02d}<{mm2:02d}:{ss2:02d},  {its:.2f}it/s, loss={loss:.3f}, v_num=3]\rEpoch {ep}:  {pct2}%|######    | {it2}/1000 [{mm:02d}:{ss2:02d}<{mm2:02d}:{ss:02d},  {its:.2f}it/s, loss={loss2:.3f}, v_num=3]",
    "[rank{gpu}]: step {step} | loss {loss:.5f} | lr {lr:.3e} | grad_norm {gn:.3f} | tokens/s {tps} | mem {mem:.1f}GB",
    "INFO:{date} {hms},{ms3:03d}:jax._src.xla_bridge:{ln}: Unable to initialize backend 'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available platform names are: CUDA",
    "INFO:{date} {hms},{ms3:03d}:jax._src.xla_bridge:{ln}: Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: libtpu.so: cannot open shared object file: No such file or directory",
    "|   {gpu}  NVIDIA A100-SXM4-40GB          On  | 00000000:{bus:02X}:00.0 Off |                    0 |",
    "| N/A   {temp}C    P0            {watt}W /  400W |  {used}MiB / 40960MiB |     {util}%      Default |",
    "[{dmesg:>12.6f}] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023",
    "[{dmesg:>12.6f}] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.129.03  Thu Oct 19 18:35:55 UTC 2023",
    "Traceback (most recent call last):",
    "  File \"/workspace/train.py\", line {ln}, in <module>",
    "    main(args)",
    "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/shard-{step:05d}.tfrecord'",
    "{date} {hms},{ms3:03d} - INFO - trainer - Saving checkpoint to /checkpoints/run-{pid}/step-{step}.pt",
    "{date} {hms},{ms3:03d} - INFO - eval - val/loss={loss:.4f} val/acc={acc:.4f} ppl={ppl:.2f}",
]


def values(rng, n):
    secs = 1700000000 + n // 7
    h, m, s = (secs // 3600) % 24, (secs // 60) % 60, secs % 60
    return dict(
        ts="2024-0{}-{:02d} {:02d}:{:02d}:{:02d}.{:06d}".format(rng.randint(1, 9), rng.randint(1, 28), h, m, s, rng.randrange(10**6)),
        epoch=secs, us=rng.randrange(10**6), pid=rng.randint(1000, 99999), tid=rng.randint(1000, 99999),
        gpu=rng.randrange(8), mb=rng.randint(20000, 39000), bus=rng.randrange(256), addr=rng.getrandbits(40),
        addr2=rng.getrandbits(60), gib=rng.uniform(0.1, 9), ep=rng.randint(1, 100), step=rng.randint(1, 99999),
        sec=rng.randint(5, 60), ms=rng.randint(2, 40), loss=rng.uniform(0, 3), acc=rng.random(), loss2=rng.uniform(0, 3),
        acc2=rng.random(), host="gpu-node-{:03d}".format(rng.randrange(64)), a=rng.randrange(256), b=rng.randrange(256),
        ch=rng.randrange(32), mmdd="{:02d}{:02d}".format(rng.randint(1, 12), rng.randint(1, 28)),
        hms="{:02d}:{:02d}:{:02d}".format(h, m, s), pct=rng.randrange(100), pct2=rng.randrange(100),
        it=rng.randrange(1000), it2=rng.randrange(1000), mm=rng.randrange(60), ss=rng.randrange(60),
        mm2=rng.randrange(60), ss2=rng.randrange(60), its=rng.uniform(1, 20), lr=rng.uniform(1e-6, 1e-3),
        gn=rng.uniform(0, 5), tps=rng.randint(1000, 90000), mem=rng.uniform(5, 39), date="2024-05-{:02d}".format(rng.randint(1, 28)),
        ms3=rng.randrange(1000), ln=rng.randint(10, 2000), temp=rng.randint(30, 80), watt=rng.randint(60, 400),
        used=rng.randint(0, 40000), util=rng.randrange(101), dmesg=rng.uniform(1, 99999), ppl=rng.uniform(1, 50),
    )


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: explain_log.py OUT SIZE_MIB [SIGNATURES_JSON]")
    out, size = sys.argv[1], int(sys.argv[2]) * 1024 * 1024
    failures = []
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            failures = [r["example"] for r in json.load(f)["rows"]]
    rng = random.Random(7)
    pool = []
    for n in range(60000):
        t = TEMPLATES[rng.randrange(len(TEMPLATES))]
        pool.append((t.format(**values(rng, n)) + "\n").encode("utf-8"))
    fails = [(f + "\n").encode("utf-8") for f in failures]
    written = 0
    with open(out, "wb") as f:
        while written < size:
            block = rng.choices(pool, k=20000)
            if fails:
                block[rng.randrange(len(block))] = fails[rng.randrange(len(fails))]
            data = b"".join(block)
            if written + len(data) > size:
                data = data[: size - written]
                cut = data.rfind(b"\n")
                data = data[: cut + 1] if cut >= 0 else data
                if not data:
                    break
            f.write(data)
            written += len(data)


if __name__ == "__main__":
    main()
