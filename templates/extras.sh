# shellcheck shell=sh
# templates/extras.sh: the plan's extras (python3, jupyter, pytorch, or any
# distribution package by its name), from the distribution only: pip is not
# used.  An extra the distribution cannot provide honestly is reported as
# skipped, with the reason, and the others are installed.

# extras_map NAME: prints the packages for NAME, or "-REASON" when it is
# skipped on this node.
extras_map() {
	case $1 in
	python3)
		echo python3
		;;
	jupyter)
		if [ "$PROV_OS_FAMILY" = debian ]; then
			echo jupyter-notebook
		else
			echo "-jupyter is not packaged for $PROV_OS_ID $PROV_OS_VERSION (pip is not used)"
		fi
		;;
	pytorch | torch)
		if [ "$PROV_OS_FAMILY" != debian ] || ! pkg_available python3-torch; then
			echo "-pytorch is not packaged for $PROV_OS_ID $PROV_OS_VERSION (pip is not used)"
		elif has_nvidia_gpu; then
			echo "-$PROV_OS_ID's python3-torch is built without CUDA; on a GPU node that would be a pretend install (pip is not used)"
		else
			echo python3-torch
		fi
		;;
	*)
		echo "$1"
		;;
	esac
}

# Sets EXTRAS_PKGS (space-separated) and EXTRAS_SKIPPED (lines).
extras_plan() {
	EXTRAS_PKGS=
	EXTRAS_SKIPPED=
	for _ep_x in $EXTRAS; do
		_ep_m=$(extras_map "$_ep_x")
		case $_ep_m in
		-*) EXTRAS_SKIPPED="$EXTRAS_SKIPPED$_ep_x: ${_ep_m#-}$PROV_NL" ;;
		*) EXTRAS_PKGS="$EXTRAS_PKGS $_ep_m" ;;
		esac
	done
}

extras_applies() {
	[ -n "$EXTRAS" ] || prov_skip "no extras in the plan"
}

# step_packages: the packages this step installs on this node.  Every
# pkg_install of the step takes its names from here; lib/bundle.c bundles
# the same names for the plan (tests/unit/test_bundle.c compares the two).
step_packages() {
	extras_plan
	# shellcheck disable=SC2086
	printf '%s\n' $EXTRAS_PKGS
}

step_check() {
	extras_applies
	extras_plan
	if [ -z "$EXTRAS_PKGS" ]; then
		prov_skip "$(printf '%s' "$EXTRAS_SKIPPED" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
	fi
	# shellcheck disable=SC2086
	pkgs_installed $EXTRAS_PKGS
}

step_apply() {
	printf '%s' "$EXTRAS_SKIPPED" | while IFS= read -r _ea_line; do
		prov_log "skipped $_ea_line"
	done
	# shellcheck disable=SC2046
	pkg_install $(step_packages)
}
