/** The extension's icon: a chip, drawn in the theme's icon colour (jp-icon3). */
import { LabIcon } from '@jupyterlab/ui-components';

const GPU_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24"><g class="jp-icon3" fill="#616161"><path d="M9 2h2v3H9zM13 2h2v3h-2zM9 19h2v3H9zM13 19h2v3h-2zM2 9h3v2H2zM2 13h3v2H2zM19 9h3v2h-3zM19 13h3v2h-3z"/><path d="M5 5h14v14H5zm2 2v10h10V7z"/><path d="M10 10h4v4h-4z"/></g></svg>`;

export const gpuIcon = new LabIcon({ name: 'gpuoptimize:gpu', svgstr: GPU_ICON_SVG });
