# CUDA 12.4: its drivers (Linux, Windows, minor version compatibility) and the compute
# capabilities it compiles for, on driver 535.104.05 with an A100.
arg compat
arg cuda==12.4
arg --driver
arg 535.104.05
arg --gpu
arg NVIDIA A100
exit 0
