# The same question as JSON (schema gpudoctor.compat/1).
arg compat
arg tensorflow==2.15
arg --driver
arg 470.82
arg --gpu
arg Tesla K80
arg --json
exit 1
json
