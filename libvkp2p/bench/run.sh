#!/bin/sh
# usage: run.sh BUILDDIR [vkp2p-bench options]
# Runs vkp2p-bench from BUILDDIR with the layer from BUILDDIR/libvkp2p.
# Uses lavapipe unless VK_DRIVER_FILES names another driver.
set -eu
build=${1:?usage: run.sh BUILDDIR [options]}
shift
: "${VK_DRIVER_FILES:=/usr/share/vulkan/icd.d/lvp_icd.json}"
export VK_DRIVER_FILES
export VK_ADD_LAYER_PATH="$build/libvkp2p"
export NODEVICE_SELECT=1
exec "$build/libvkp2p/bench/vkp2p-bench" "$@"
