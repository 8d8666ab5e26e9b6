/**
 * The features Playwright disables with a `--disable-features` of its own. Chromium reads only
 * the last `--disable-features` on its command line, so one added after Playwright's would
 * turn these back on: the one this package passes repeats them (a test checks, on the running
 * browser's command line, that it still holds every feature Playwright's does).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
]

/**
 * Browser UI that headless Chromium builds for every window, that is for every context: the
 * omnibox popup's WebUI (two `chrome://omnibox-popup.top-chrome/` pages, preloaded), in a
 * renderer of its own per context (about 20 MiB each) that no page ever uses. Pages, and the
 * isolation of one context from another, do not depend on it.
 */
export const UNUSED_WINDOW_UI_FEATURES = [
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
  'WebUIOmniboxFullPopup',
  'PreloadTopChromeWebUI',
]

/**
 * `args` with every `--disable-features` in it, Playwright's and the unused window UI's merged
 * into one, last (the only one Chromium reads).
 *
 * @example
 * withDisabledFeatures(['--lang=en', '--disable-features=Translate'])
 * // ['--lang=en', '--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,...,Translate']
 */
export function withDisabledFeatures(args: readonly string[]): string[] {
  const flag = '--disable-features='
  const features = new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_WINDOW_UI_FEATURES])
  const rest: string[] = []
  for (const arg of args) {
    if (!arg.startsWith(flag)) {
      rest.push(arg)
      continue
    }
    for (const feature of arg.slice(flag.length).split(',')) if (feature) features.add(feature)
  }
  return [...rest, `${flag}${[...features].join(',')}`]
}
