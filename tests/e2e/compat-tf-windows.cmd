# Native Windows: TensorFlow after 2.10 has no GPU support there.
arg compat
arg tensorflow==2.15
arg --os
arg windows
arg --driver
arg 551.61
arg --cc
arg 8.6
exit 1
