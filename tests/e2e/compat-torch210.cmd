# torch 2.1.0 on driver 470.82 with compute capability 3.7: its cu118 wheel through minor
# version compatibility (450.80.02), not its cu121 one.
arg compat
arg torch==2.1.0
arg --driver
arg 470.82
arg --cc
arg 3.7
exit 0
