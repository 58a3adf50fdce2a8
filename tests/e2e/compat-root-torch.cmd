# The fixture root ubuntu-550 (driver 550.54.14, two RTX 3090): its driver and GPUs come from
# the tree's /proc files.
arg compat
arg torch==2.1.0
arg --root
arg @ROOTS@/ubuntu-550
exit 0
