#!/bin/sh
# Collect what docs/validation/README.md asks for on a machine with a real NVIDIA GPU:
#   docs/validation/collect.sh [BUILD_DIR] [OUT_DIR]
# BUILD_DIR holds a built gpudoctor (default: build); OUT_DIR receives the outputs (default:
# docs/validation/<date>-<first GPU's name>). Nothing here changes the GPUs' settings; the
# scenarios that need root or change modes are listed in the README, to run by hand.
set -u
build=${1:-build}
gd=$build/gpudoctor
[ -x "$gd" ] || { echo "no $gd: build first (make build)" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 || { echo "no nvidia-smi: not a machine with the NVIDIA driver" >&2; exit 2; }
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr ' /' '__')
out=${2:-docs/validation/$(date +%Y-%m-%d)-${name:-gpu}}
mkdir -p "$out" || exit 2
echo "writing $out"

run() { # run NAME COMMAND...: stdout, stderr and the exit status into OUT/NAME.*
  n=$1; shift
  "$@" >"$out/$n.out" 2>"$out/$n.err"
  echo $? >"$out/$n.status"
}

# The machine.
run uname uname -a
run os-release cat /etc/os-release
run nvidia-smi nvidia-smi
run nvidia-smi-L nvidia-smi -L
run nvidia-smi-q nvidia-smi -q
# Field names change between drivers (clocks_throttle_reasons became clocks_event_reasons):
# the list of this driver's, then the fields gpudoctor reports, then the fallback names.
run query-help nvidia-smi --help-query-gpu
run query-gpu nvidia-smi --format=csv --query-gpu=index,pci.bus_id,uuid,name,compute_cap,memory.total,memory.used,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,enforced.power.limit,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,ecc.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,ecc.errors.corrected.volatile.total,retired_pages.pending,persistence_mode,compute_mode,mig.mode.current,driver_version
run query-reasons nvidia-smi --format=csv --query-gpu=index,clocks_event_reasons.active
run query-reasons-old nvidia-smi --format=csv --query-gpu=index,clocks_throttle_reasons.active
run query-apps nvidia-smi --format=csv --query-compute-apps=gpu_bus_id,pid,process_name,used_memory
run query-remap nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT,ECC,PERFORMANCE,COMPUTE

# gpudoctor.
run check-text "$gd" check -v --color never
run check-json "$gd" check --json
run test-text "$gd" test -v --color never --progress always
run test-json "$gd" test --json
# CUDA_VISIBLE_DEVICES read by the driver, compared with gpudoctor's reading.
for v in "" "0" "1" "1,0" "-1" "0,0" "0,-1,1" "99" "GPU-" "$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -n 1 | cut -c1-12)"; do
  tag=$(printf '%s' "visible-[$v]" | tr -c 'A-Za-z0-9_.,[]-' '_')
  run "check-$tag" "$gd" check --json --env "CUDA_VISIBLE_DEVICES=$v"
done
run check-pci-order "$gd" check --json --env CUDA_DEVICE_ORDER=PCI_BUS_ID
# A driver that refuses to JIT-compile PTX: the test kernel must fail with its error named.
run test-no-jit env CUDA_DISABLE_PTX_JIT=1 "$gd" test --json

# The test suite on this machine (the fake-library cases run here too).
if [ -f "$build/CTestTestfile.cmake" ]; then
  (cd "$build" && ctest --output-on-failure) >"$out/ctest.out" 2>&1
  echo $? >"$out/ctest.status"
fi

# torch's view of the same devices, when torch with CUDA is installed.
py=$(command -v python3 || true)
if [ -n "$py" ]; then
  for v in unset 1; do
    if [ "$v" = unset ]; then set -- env -u CUDA_VISIBLE_DEVICES; else set -- env CUDA_VISIBLE_DEVICES=$v; fi
    "$@" "$py" - >"$out/torch-visible-$v.out" 2>"$out/torch-visible-$v.err" <<'PY'
import json
try:
    import torch
except Exception as e:
    print(json.dumps({"torch": None, "error": repr(e)}))
    raise SystemExit(0)
r = {"torch": torch.__version__, "cuda": torch.version.cuda,
     "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
     "available": torch.cuda.is_available(), "devices": []}
for i in range(torch.cuda.device_count() if r["available"] else 0):
    p = torch.cuda.get_device_properties(i)
    free, total = torch.cuda.mem_get_info(i)
    r["devices"].append({"index": i, "name": p.name, "cc": f"{p.major}.{p.minor}",
                         "sm_count": p.multi_processor_count, "total_memory": p.total_memory,
                         "uuid": str(getattr(p, "uuid", "")), "pci_bus_id": getattr(p, "pci_bus_id", None),
                         "mem_get_info": [free, total]})
print(json.dumps(r, indent=1))
PY
  done
fi
echo "done: compare as docs/validation/README.md says, and write $out/README.md"
