# The plan for the fixture root ubuntu-550.
arg plan
arg tensorflow
arg --root
arg @ROOTS@/ubuntu-550
exit 0
