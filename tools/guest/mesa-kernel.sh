#!/bin/bash
# Run 4 of ./onenode mesa-test --vm, inside the test VM: the patched RADV's
# real amdgpu winsys over Mesa's amdgpu drm-shim, with
# mesa-patches/tests/onenode_compute_shim.c in kernel mode in front of it, so
# that the DRM compute calls and the NIC buffers are vcompute's (the first
# vcompute render node). The test program then registers the dma-buf RADV
# exports with Soft-RoCE (rxe0, set up by tools/guest/run.sh), writes into
# it by RDMA and reads it through RADV's CPU mapping. Alone and under the
# vkp2p layer, which must step aside. No shader runs: drm-shim's amdgpu
# executes nothing, and no command submission reaches any kernel.
#
# usage: mesa-kernel.sh TEST ICD FAMILY PRELOAD LAYER_DIR (tools/mesa.sh
# passes its own paths, as they are inside the tree, which is the VM's root)
set -u
bin=$1
export VK_DRIVER_FILES=$2 AMDGPU_GPU_ID=$3 LD_PRELOAD=$4
export ONENODE_COMPUTE_SHIM_NODE=auto
layer_dir=$5
rc=0
echo "mesa-kernel: RADV ($AMDGPU_GPU_ID over drm-shim), NIC memory on vcompute, rxe0 writing into it"
"$bin" --kernel rxe0 || rc=1
echo "mesa-kernel: the same under VK_LAYER_ONENODE_vkp2p"
VK_ADD_LAYER_PATH=$layer_dir "$bin" --layer --kernel rxe0 || rc=1
echo "mesa-kernel: $([ $rc = 0 ] && echo passed || echo FAILED)"
exit $rc
