/**
 * The VINs the virtual manufacturer has (the thirteen of the spec plus every scenario file's
 * vehicle). The management work uses it to confirm or refuse activations. OWNED BY THE
 * SIMULATOR WORK, which derives it from simulator/scenarios/.
 */
export function loadVirtualVins(_scenariosDir: string): Set<string> {
  return new Set([
    'V1RTUALV1N0000001',
    'V1RTUALV1N0000002',
    'V1RTUALV1N0000003',
    'V1RTUALV1N0000004',
    'V1RTUALV1N0000S05',
    'V1RTUALV1N0000S06',
    'V1RTUALV1N0000S07',
    'V1RTUALV1N0000S08',
    'V1RTUALV1N0000S09',
    'V1RTUALV1N0000S10',
    'V1RTUALV1N0000S11',
    'V1RTUALV1N0000S12',
    'V1RTUALV1N0000S13',
  ]);
}
