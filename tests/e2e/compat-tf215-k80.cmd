# TensorFlow 2.15 on a machine with driver 470.82 and a Tesla K80: CUDA 12.2 needs 525 at
# least, and CUDA 12.0 dropped compute capability 3.7. (The issue's example.)
arg compat
arg tensorflow==2.15
arg --driver
arg 470.82
arg --gpu
arg Tesla K80
exit 1
