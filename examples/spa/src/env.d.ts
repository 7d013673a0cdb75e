/** The build-time settings the page reads (Vite replaces them when it builds). */
interface ImportMetaEnv {
  /** The gateway's origin when it differs from the page's; unset for the dev proxy. */
  readonly VITE_GATEWAY_URL?: string;
}
