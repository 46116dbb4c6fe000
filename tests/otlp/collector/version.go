// SPDX-License-Identifier: Apache-2.0
// The collector release this program is built from: the version of every
// go.opentelemetry.io/collector v0.x module in go.mod (the v1.x ones go with it).
package main

const version = "0.161.0"
