/** The plugin's few styles, scoped by class (`rp-`), logical properties for right-to-left. */
export const STYLES = `
.rp-controls{display:flex;flex-wrap:wrap;gap:8px 12px;align-items:center;padding:8px 12px;font:14px system-ui,sans-serif}
.rp-controls input,.rp-controls select,.rp-controls button{font:inherit}
.rp-problem{flex-basis:100%;margin:0;color:#a4262c}
.rp-root{padding:0 12px;font:14px system-ui,sans-serif}
.rp-table{border-collapse:collapse;width:100%}
.rp-table th,.rp-table td{padding:4px 8px;border-block-end:1px solid #ddd;text-align:start}
.rp-table td[data-key]{font-variant-numeric:tabular-nums}
.rp-error{color:#a4262c}
`;
