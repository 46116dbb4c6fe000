#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the OTLP response decoders (partial_success,
# google.rpc.Status with RetryInfo, the gRPC frame and its gzip, grpc-message, text bodies)
# into $BUILD/fuzz, replays the committed answers and fuzzes for $FUZZ_SECONDS (default
# 30); any crash, leak, hang or broken bound fails. Needs the generated protobuf-c code
# (make all).
# Usage: tests/fuzz/run_otlp_response.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_otlp_response.sh
NAME=fuzz_otlp_response
out=${BUILD:-build}/fuzz/otlp_response
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-8192}
. "$(dirname "$0")/lib.sh"

gen=$BUILD/gen
[ -f "$gen/rpc_status.pb-c.c" ] || fail "no generated protobuf-c code in $gen: run make all"

seed() { :; } # the committed corpus is the seed

dictionary() {
	cat <<'DICT'
retry="type.googleapis.com/google.rpc.RetryInfo"
gzip_magic="\x1f\x8b\x08"
frame="\x00\x00\x00\x00"
pct="%2"
DICT
}

fuzz_all src/export/otlp_response.c src/util/gzip.c \
	"$gen/opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.c" \
	"$gen/opentelemetry/proto/profiles/v1development/profiles.pb-c.c" \
	"$gen/opentelemetry/proto/common/v1/common.pb-c.c" \
	"$gen/opentelemetry/proto/resource/v1/resource.pb-c.c" "$gen/rpc_status.pb-c.c" \
	-- -lprotobuf-c -lz
