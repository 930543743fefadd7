# Sourced by run28.sh and later, with R the repository root on the device: the carried
# .devvenv becomes .venv (MPICH, and ip/tc/nsenter/unshare under net/ where the machine
# lacks them), the carried build is used where the tree has none, and the build's
# run paths (/work/main) lead to this tree.
rm -rf .venv && cp -a .devvenv .venv
[ -d build ] || cp -a .devbuild build
mkdir -p /work; [ "$R" = /work/main ] || [ -e /work/main ] || ln -s "$R" /work/main
export PATH=$R/.venv/bin:$PATH PYTHONUNBUFFERED=1
command -v ip >/dev/null && command -v nsenter >/dev/null || export PATH=$PATH:$R/.venv/net/bin
export MPIEXEC=$R/.venv/bin/mpiexec
