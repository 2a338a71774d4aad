/** The preload (sandboxed, CommonJS once built): exposes the narrow desktop API and nothing else. */
import { contextBridge, ipcRenderer } from 'electron';
import { createDesktopApi } from './desktop-api.ts';

contextBridge.exposeInMainWorld('zeromemDesktop', createDesktopApi(ipcRenderer));
