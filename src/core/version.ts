import { PACKAGE_VERSION } from './package-root.js';

export const VERSION: string = PACKAGE_VERSION;
