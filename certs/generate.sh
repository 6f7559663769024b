#!/usr/bin/env bash
# Writes a CA and a serving certificate signed by it, for the webhook's TLS, with openssl.
#
#   certs/generate.sh [-o DIR] [-d DAYS] [-n NAMESPACE] [-s SERVICE] [--new-ca] [HOST...]
#
# HOST: DNS names and IP addresses the serving certificate is valid for. Default: localhost,
# 127.0.0.1 and the Service's DNS names (SERVICE, SERVICE.NAMESPACE, SERVICE.NAMESPACE.svc,
# SERVICE.NAMESPACE.svc.cluster.local).
# Output (DIR, default certs/out): ca.crt ca.key tls.crt tls.key, the key names of a
# kubernetes.io/tls Secret. An existing CA in DIR is reused, so re-running renews the serving
# certificate under the CA the kube-apiserver already trusts; --new-ca replaces the CA too.
set -euo pipefail

out="$(cd "$(dirname "$0")" && pwd)/out"
days=365
ca_days=3650
namespace=version-policy
service=version-policy
new_ca=false
hosts=()

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    -o|--out) out="$2"; shift 2 ;;
    -d|--days) days="$2"; shift 2 ;;
    -n|--namespace) namespace="$2"; shift 2 ;;
    -s|--service) service="$2"; shift 2 ;;
    --new-ca) new_ca=true; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "generate.sh: unknown option $1" >&2; usage 2 >&2 ;;
    *) hosts+=("$1"); shift ;;
  esac
done

if [ ${#hosts[@]} -eq 0 ]; then
  hosts=(localhost 127.0.0.1 "$service" "$service.$namespace" "$service.$namespace.svc" "$service.$namespace.svc.cluster.local")
fi

is_ip() { [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ || "$1" == *:* ]]; }

san=""
for h in "${hosts[@]}"; do
  if is_ip "$h"; then san+="${san:+,}IP:$h"; else san+="${san:+,}DNS:$h"; fi
done

# Keys are readable by the owner only, from the moment they exist.
umask 077
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if $new_ca || [ ! -s "$out/ca.crt" ] || [ ! -s "$out/ca.key" ]; then
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/ca.key" 2>/dev/null
  openssl req -x509 -new -sha256 -key "$work/ca.key" -days "$ca_days" -subj "/CN=version-policy CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -addext "subjectKeyIdentifier=hash" \
    -out "$work/ca.crt"
  mv "$work/ca.key" "$out/ca.key"
  mv "$work/ca.crt" "$out/ca.crt"
  echo "generate.sh: new CA in $out/ca.crt" >&2
fi

cat > "$work/leaf.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=$san
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
EXT

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/tls.key" 2>/dev/null
openssl req -new -sha256 -key "$work/tls.key" -subj "/CN=${hosts[0]}" -out "$work/tls.csr"
openssl x509 -req -sha256 -in "$work/tls.csr" -CA "$out/ca.crt" -CAkey "$out/ca.key" \
  -set_serial "0x$(openssl rand -hex 16)" -days "$days" -extfile "$work/leaf.ext" \
  -out "$work/tls.crt" 2>/dev/null
openssl verify -CAfile "$out/ca.crt" "$work/tls.crt" >/dev/null

# Swap the pair in together, key first: a reader never sees a certificate without its key.
mv "$work/tls.key" "$out/tls.key"
mv "$work/tls.crt" "$out/tls.crt"
chmod 644 "$out/ca.crt" "$out/tls.crt"
echo "generate.sh: serving certificate for ${hosts[*]} in $out/tls.crt (valid $days days)" >&2
