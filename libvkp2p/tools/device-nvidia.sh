#!/bin/bash
# One session on an NVIDIA machine of the device tool (H100, H200) for
# libvkp2p: run with carry [".gl", ".device-carry/vkp2p"], after
# tools/prepare-device-carry.sh. Builds from the carried tree, runs the
# example and the benchmark on the NVIDIA driver. Output under $OUT.
#
# The benchmark warms the GPU before every bandwidth row (--warm-ms) and
# samples its clocks during each row's work (--clock-cmd); the clocks are
# also logged every 100 ms for the whole run to $OUT/clocks.csv.
set -u
exec > >(tee "$OUT/nvidia.log") 2>&1
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.max.sm,clocks.max.mem --format=csv
uname -r; ldd --version | head -1; (g++ --version || c++ --version) | head -1
ldconfig -p | grep libvulkan
ls /dev/dri /dev/udmabuf 2>&1 | head -3
C=$PWD/.device-carry/vkp2p
VKP2P_VK_INCLUDE=$C/include VKP2P_SPV_DIR=$C/spv VKP2P_LIBVULKAN=/usr/lib/x86_64-linux-gnu/libvulkan.so.1 \
	libvkp2p/tools/build-standalone.sh /tmp/vkp2p || exit 1
export VK_LAYER_PATH=/tmp/vkp2p
for p in require-p2p prefer-p2p host; do
	echo "== vk-nic-ingest --policy $p --local-producer"
	/tmp/vkp2p/vk-nic-ingest --policy $p --local-producer --packets 65536; echo "rc=$?"
done
echo "== vk-nic-ingest --rdma mlx5_0"
/tmp/vkp2p/vk-nic-ingest --rdma mlx5_0 --local-producer; echo "rc=$?"
echo "== NICs: $(ls /sys/class/net 2>/dev/null) / $(ls /sys/class/infiniband 2>/dev/null)"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv -lms 100 >"$OUT/clocks.csv" 2>&1 &
smi=$!
clock='nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader'
echo "== vkp2p-bench, cold: no warm-up (as the tables before 2026-11-28 were measured)"
/tmp/vkp2p/vkp2p-bench --size 1024 --passes 20 --calls 1000 --warm-ms 0 --clock-cmd "$clock"; echo "rc=$?"
for run in 1 2; do
	echo "== vkp2p-bench, warm run $run: 1 s of the same dispatches before every row"
	/tmp/vkp2p/vkp2p-bench --size 1024 --passes 20 --calls 1000 --warm-ms 1000 --clock-cmd "$clock"
	echo "rc=$?"
done
kill "$smi"
