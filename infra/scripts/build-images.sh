#!/usr/bin/env bash
# Builds the three service images from the repository root and, with --push, pushes them and
# records each one's registry digest in the Pulumi stack (gatehouse:imageDigests.<service>), so
# the deployment runs exactly the images built here (prod refuses to deploy by tag alone).
#
#   infra/scripts/build-images.sh [--stack stage|prod] [--registry R] [--tag T] [--push]
#
# Registry and tag default to the stack's gatehouse:imageRegistry and gatehouse:imageTag.
set -euo pipefail

usage() {
  echo "usage: $0 [--stack stage|prod] [--registry REGISTRY] [--tag TAG] [--push]" >&2
  exit 2
}

infra_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$infra_dir/.." && pwd)"
stack=stage registry="" tag="" push=false
while [ $# -gt 0 ]; do
  case "$1" in
    --stack) stack="${2:?}"; shift 2 ;;
    --registry) registry="${2:?}"; shift 2 ;;
    --tag) tag="${2:?}"; shift 2 ;;
    --push) push=true; shift ;;
    *) usage ;;
  esac
done
stack_file="$infra_dir/Pulumi.$stack.yaml"
[ -f "$stack_file" ] || { echo "no stack file $stack_file" >&2; exit 2; }
# A top-level scalar of the stack file, quotes removed.
stack_value() { sed -n "s/^  gatehouse:$1: *\"\{0,1\}\([^\"]*\)\"\{0,1\} *$/\1/p" "$stack_file"; }
registry="${registry:-$(stack_value imageRegistry)}"
tag="${tag:-$(stack_value imageTag)}"
[ -n "$registry" ] && [ -n "$tag" ] || { echo "registry and tag are required (--registry, --tag, or the stack file)" >&2; exit 2; }

for service in management-api authz-engine workspace-cache; do
  image="$registry/$service:$tag"
  docker build -f "$root/apps/$service/Dockerfile" -t "$image" "$root"
  if [ "$push" = true ]; then
    docker push "$image"
    # The digest the registry assigned: <registry>/<service>@sha256:<hex>.
    digest="$(docker inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$image" | sed -n "s|^$registry/$service@\(sha256:[0-9a-f]\{64\}\)$|\1|p" | head -n 1)"
    [ -n "$digest" ] || { echo "no registry digest for $image after the push" >&2; exit 1; }
    (cd "$infra_dir" && pulumi config set --stack "$stack" --path "gatehouse:imageDigests.$service" "$digest")
    echo "$service: $registry/$service@$digest"
  fi
done
[ "$push" = true ] || echo "built $registry/{management-api,authz-engine,workspace-cache}:$tag (not pushed: no digest recorded)"
