# TensorFlow for driver 535.104.05 and an A100: 2.15.0 (CUDA 12.2), 2.18.0 through minor
# version compatibility, and the driver for 2.18.0's own CUDA.
arg plan
arg tensorflow
arg --driver
arg 535.104.05
arg --gpu
arg NVIDIA A100
exit 0
