# Every tested TensorFlow build against driver 470.82.01 and compute capability 7.0.
arg compat
arg tensorflow
arg --driver
arg 470.82.01
arg --cc
arg 7.0
exit 0
