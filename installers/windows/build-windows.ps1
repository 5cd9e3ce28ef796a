# =====================================================================================
# NOT BUILT OR TESTED: written on Linux; no one has run this on Windows/macOS yet.
# Treat the first build on that platform as a bring-up and record what changed.
# =====================================================================================
<#
.SYNOPSIS
Builds the Windows bundle of the editor: dist\vpl-editor-<version>-windows-x86_64.zip

.DESCRIPTION
The zip unpacks to vpl-editor-<version>\ holding vpl-editor.exe (the editor,
windowed) and vpl.exe (the command line), a PyInstaller one-folder build of
installers\windows\vpl-editor.spec. Steps:

  1. check the Python (3.10 to 3.12, 64-bit, x86_64);
  2. check the git symlinks that carry the package data are real folders;
  3. build environment build\windows-bundle\venv (reused while
     installers\requirements-build.txt is unchanged) with the pinned PyInstaller;
  4. install this checkout non-editable (pip install .), read the version;
  5. PyInstaller into build\windows-bundle\dist (work files in build\windows-bundle\work);
  6. smoke test: vpl.exe check on a bundled example, vpl.exe --version, vpl-editor.exe --version;
  7. zip with Compress-Archive; print the sizes and the time taken.

See installers\windows\BUILD.md.

.PARAMETER Python
The Python to build with (default: python). For example the path printed by
  py -3.12 -c "import sys; print(sys.executable)"

.EXAMPLE
powershell -ExecutionPolicy Bypass -File installers\windows\build-windows.ps1 -Python C:\Python312\python.exe
#>
[CmdletBinding()]
param(
    [string]$Python = "python"
)

Set-StrictMode -Version Latest
$ErrorActionPreference = "Stop"
$Clock = [System.Diagnostics.Stopwatch]::StartNew()

# Every relative path below is from the root of the checkout.
$Root = (Resolve-Path -LiteralPath (Join-Path $PSScriptRoot "..\..")).Path
Set-Location -LiteralPath $Root

function Invoke-Native {
    # Runs a native command; PowerShell does not stop on a non-zero exit code by itself.
    param([Parameter(Mandatory = $true)][string]$What, [Parameter(Mandatory = $true)][scriptblock]$Command)
    # pip and PyInstaller log to stderr; some hosts turn native stderr into error records,
    # which "Stop" would make fatal. Only the exit code decides.
    $Previous = $ErrorActionPreference
    $ErrorActionPreference = "Continue"
    try { & $Command } finally { $ErrorActionPreference = $Previous }
    if ($LASTEXITCODE -ne 0) {
        throw "build-windows.ps1: $What failed (exit code $LASTEXITCODE)"
    }
}

# 1. The Python.
Write-Host "== checking $Python"
$Probe = $null
try {
    $Probe = & $Python -c "import platform, sys; print(sys.version_info[0], sys.version_info[1], sys.maxsize > 2**32, platform.machine())"
} catch {
    $Probe = $null  # not found: reported just below
}
if (-not $Probe -or $LASTEXITCODE -ne 0) {
    throw "build-windows.ps1: cannot run '$Python'; pass -Python C:\path\to\python.exe (3.10 to 3.12, 64-bit)"
}
$Major, $Minor, $Is64, $Machine = "$Probe".Trim() -split '\s+'
if ([int]$Major -ne 3 -or [int]$Minor -lt 10 -or [int]$Minor -gt 12) {
    throw "build-windows.ps1: needs Python 3.10 to 3.12, '$Python' is $Major.$Minor"
}
if ($Is64 -ne "True" -or $Machine -ne "AMD64") {
    throw "build-windows.ps1: needs a 64-bit x86_64 Python (the zip is named windows-x86_64), '$Python' is 64-bit=$Is64 on $Machine"
}

# 2. The package data reaches the package folders through git symlinks. Without
# core.symlinks=true (which needs Developer Mode or an elevated shell) git writes each
# as a small text file holding the target path, and the bundle would ship no examples,
# built-in programs, icons or HDR environments.
$Links = @(
    @{ Path = "vpl_core\builtin_programs"; Target = "resources\programs"; Files = "*.vpl" },
    @{ Path = "app\material\examples"; Target = "resources\examples"; Files = "*.vpl" },
    @{ Path = "app\icons"; Target = "resources\icons"; Files = "vpl-editor*" },
    @{ Path = "app\preview\environments"; Target = "resources\environments"; Files = "*.hdr" }
)
$Broken = @()
foreach ($Link in $Links) {
    $IsFolder = Test-Path -LiteralPath $Link.Path -PathType Container
    if (-not $IsFolder -or @(Get-ChildItem -Path $Link.Path -Filter $Link.Files).Count -eq 0) {
        $Broken += "  $($Link.Path)  (should be a symlink to $($Link.Target))"
    }
}
if ($Broken.Count -gt 0) {
    throw @"
build-windows.ps1: these folders are not real folders in this checkout:
$($Broken -join "`n")
git checked its symlinks out as text files (core.symlinks is false). Fix: turn on
Developer Mode (Settings > System > For developers) or use an elevated shell, then run
in the checkout:
  git config core.symlinks true
  Remove-Item vpl_core\builtin_programs, app\material\examples, app\icons, app\preview\environments
  git checkout -- vpl_core/builtin_programs app/material/examples app/icons app/preview/environments
or clone again with: git clone -c core.symlinks=true <url>
"@
}

# 3. The build environment.
$Work = Join-Path $Root "build\windows-bundle"
New-Item -ItemType Directory -Force -Path $Work | Out-Null
$Venv = "$Work\venv"
$VenvPython = "$Venv\Scripts\python.exe"
$Requirements = Join-Path $Root "installers\requirements-build.txt"
$Stamp = "$Venv\requirements-build.txt"
$Fresh = -not (Test-Path -LiteralPath $VenvPython) -or -not (Test-Path -LiteralPath $Stamp)
if (-not $Fresh) {
    $Fresh = (Get-FileHash -LiteralPath $Requirements).Hash -ne (Get-FileHash -LiteralPath $Stamp).Hash
}
if ($Fresh) {
    Write-Host "== build environment in $Venv"
    if (Test-Path -LiteralPath $Venv) { Remove-Item -LiteralPath $Venv -Recurse -Force }
    Invoke-Native "creating the venv" { & $Python -m venv $Venv }
    Invoke-Native "upgrading pip" { & $VenvPython -m pip install -q --upgrade pip }
    Invoke-Native "installing $Requirements" { & $VenvPython -m pip install -q -r $Requirements }
    Copy-Item -LiteralPath $Requirements -Destination $Stamp
}

# 4. The project, as a wheel installs it (never editable); dependencies as the project pins
# them, the project itself always reinstalled from this checkout.
# From here on run in the work folder: in the checkout, Python would import the source tree
# (and a stale egg-info's version) instead of the installed package.
Set-Location -LiteralPath $Work
Write-Host "== installing the project from $Root"
Invoke-Native "pip install ." { & $VenvPython -m pip install -q $Root }
Invoke-Native "pip install --force-reinstall ." { & $VenvPython -m pip install -q --no-deps --force-reinstall $Root }
$Version = & $VenvPython -c "from importlib.metadata import version; print(version('vpl-material-editor'))"
if ($LASTEXITCODE -ne 0 -or -not $Version) { throw "build-windows.ps1: cannot read the version of vpl-material-editor" }
$Version = "$Version".Trim()
$Name = "vpl-editor-$Version"

# 5. PyInstaller.
Write-Host "== PyInstaller ($Name)"
if (Test-Path -LiteralPath "$Work\dist") { Remove-Item -LiteralPath "$Work\dist" -Recurse -Force }
Invoke-Native "PyInstaller" {
    & $VenvPython -m PyInstaller --noconfirm --clean --log-level WARN `
        --distpath "$Work\dist" --workpath "$Work\work" `
        (Join-Path $Root "installers\windows\vpl-editor.spec")
}
$Bundle = "$Work\dist\vpl-editor"

# 6. Smoke test: the command line reads a shipped example; both executables start.
Write-Host "== smoke test"
$Example = Get-ChildItem -Path "$Bundle\_internal\app\material\examples" -Filter *.vpl -ErrorAction SilentlyContinue |
    Sort-Object Name | Select-Object -First 1
if (-not $Example) { throw "build-windows.ps1: no example .vpl in $Bundle\_internal\app\material\examples (package data missing)" }
Invoke-Native "vpl.exe check $($Example.Name)" { & "$Bundle\vpl.exe" check $Example.FullName }
Invoke-Native "vpl.exe --version" { & "$Bundle\vpl.exe" --version }
# vpl-editor.exe is a windowed program: PowerShell does not wait for it, and it may have
# no usable stdout, so run it with Start-Process, a timeout and redirected output.
$EditorOut = "$Work\editor-version.txt"
$EditorErr = "$Work\editor-version-stderr.txt"
$Editor = Start-Process -FilePath (Resolve-Path -LiteralPath "$Bundle\vpl-editor.exe").Path -ArgumentList "--version" `
    -NoNewWindow -PassThru -RedirectStandardOutput $EditorOut -RedirectStandardError $EditorErr
$null = $Editor.Handle  # keeps the process handle so ExitCode is readable after exit
if (-not $Editor.WaitForExit(120000)) {
    Stop-Process -Id $Editor.Id -Force
    throw "build-windows.ps1: vpl-editor.exe --version did not exit within 2 minutes (an error dialog may be open)"
}
if ($Editor.ExitCode -ne 0) {
    throw "build-windows.ps1: vpl-editor.exe --version exited with $($Editor.ExitCode): $(Get-Content -LiteralPath $EditorErr -Raw)"
}
$EditorVersion = Get-Content -LiteralPath $EditorOut -Raw
if ($EditorVersion) {
    if (-not $EditorVersion.Contains($Version)) {
        throw "build-windows.ps1: vpl-editor.exe --version printed '$($EditorVersion.Trim())', expected version $Version"
    }
    Write-Host "  $($EditorVersion.Trim())"
} else {
    Write-Warning "vpl-editor.exe --version exited 0 but printed nothing (a windowed executable may have no stdout); check it by hand"
}

# 7. The zip: one top folder vpl-editor-<version>\ (like the Linux tarball).
$Stage = "$Work\stage"
if (Test-Path -LiteralPath $Stage) { Remove-Item -LiteralPath $Stage -Recurse -Force }
New-Item -ItemType Directory -Path $Stage | Out-Null
Move-Item -LiteralPath $Bundle -Destination "$Stage\$Name"
$Dist = Join-Path $Root "dist"
New-Item -ItemType Directory -Force -Path $Dist | Out-Null
$Zip = "$Dist\vpl-editor-$Version-windows-x86_64.zip"
if (Test-Path -LiteralPath $Zip) { Remove-Item -LiteralPath $Zip -Force }
Write-Host "== $Zip"
Compress-Archive -Path "$Stage\$Name" -DestinationPath $Zip -CompressionLevel Optimal

$Packed = [math]::Round((Get-Item -LiteralPath $Zip).Length / 1MB, 1)
$Unpacked = [math]::Round((Get-ChildItem -LiteralPath "$Stage\$Name" -Recurse -File | Measure-Object -Property Length -Sum).Sum / 1MB, 1)
Write-Host "built $((Resolve-Path -LiteralPath $Zip).Path)"
Write-Host "  version $Version, $Packed MB packed, $Unpacked MB unpacked, $([int]$Clock.Elapsed.TotalSeconds) s"
