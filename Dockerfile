# syntax=docker/dockerfile:1
#
# Build:  docker build -t btcd .
# Run:    docker run -d --name btcd -v btcd-data:/data -p 8333:8333 btcd
#         docker run ... btcd --regtest --rpcuser=u --rpcpass=p --rpclisten=0.0.0.0
#         docker stop -t 60 btcd   # give the node time to flush on SIGTERM
#
# The image runs as an unprivileged user; HOME=/data makes the application
# directory (btcd.conf, chain data, logs) /data/.btcd inside the volume.

FROM golang:1.26 AS builder
WORKDIR /src

# Fetch modules in their own layer so source edits do not re-download them.
COPY go.mod go.sum ./
RUN go mod download

COPY . .
# CGO off gives a fully static binary that runs on any base image.
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
RUN go build -trimpath -ldflags="-s -w" -o /out/btcd . && \
    /out/btcd --version

FROM debian:bookworm-slim

# btcd handles SIGINT/SIGTERM itself and starts no child processes, so it can
# run as PID 1 without an init.
RUN groupadd --system --gid 10001 btcd && \
    useradd --system --uid 10001 --gid btcd --home-dir /data --shell /usr/sbin/nologin btcd && \
    mkdir -p /data && chown btcd:btcd /data && chmod 0700 /data

COPY --from=builder /out/btcd /usr/local/bin/btcd

ENV HOME=/data
USER btcd:btcd
WORKDIR /data
VOLUME ["/data"]

# P2P and RPC ports: mainnet 8333/8332, regtest 18444/18443.
EXPOSE 8333 8332 18444 18443

STOPSIGNAL SIGTERM
ENTRYPOINT ["btcd"]
